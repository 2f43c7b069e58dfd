// Pages of the social app: conversation, inbox, contacts. Progressive enhancement over plain
// forms: every action also works without this script. Live updates arrive as `notify:<type>`
// events from notify.js. User text goes into the page only through textContent and
// createTextNode; links are built as elements, http(s) only.

const URL_RE = /https?:\/\/[^\s<>"']+/gi;
const TRAILING = ".,!?;:)]}";

function csrfToken() {
  const input = document.querySelector("input[name=csrfmiddlewaretoken]");
  if (input) return input.value;
  const match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
  return match ? decodeURIComponent(match[1]) : "";
}

function splitTrailing(url) {
  let tail = "";
  while (url && TRAILING.includes(url.at(-1))) {
    if (url.at(-1) === ")" && (url.match(/\(/g) || []).length >= (url.match(/\)/g) || []).length) break;
    tail = url.at(-1) + tail;
    url = url.slice(0, -1);
  }
  return [url, tail];
}

// Text with http(s) links as a DocumentFragment (never HTML).
export function linkify(text) {
  const fragment = document.createDocumentFragment();
  let pos = 0;
  for (const match of text.matchAll(URL_RE)) {
    const [url, tail] = splitTrailing(match[0]);
    let parsed = null;
    try {
      parsed = new URL(url);
    } catch {
      parsed = null;
    }
    if (!parsed || !["http:", "https:"].includes(parsed.protocol)) continue;
    fragment.append(document.createTextNode(text.slice(pos, match.index)));
    const a = document.createElement("a");
    a.href = parsed.href;
    a.rel = "nofollow noopener noreferrer";
    a.target = "_blank";
    a.textContent = url;
    fragment.append(a);
    fragment.append(document.createTextNode(tail));
    pos = match.index + match[0].length;
  }
  fragment.append(document.createTextNode(text.slice(pos)));
  return fragment;
}

const timeFormat = new Intl.DateTimeFormat(undefined, {
  month: "short", day: "numeric", hour: "2-digit", minute: "2-digit",
});

async function postForm(url, form) {
  const response = await fetch(url, {
    method: "POST",
    headers: { Accept: "application/json", "X-CSRFToken": csrfToken() },
    body: form ? new FormData(form) : undefined,
    credentials: "same-origin",
  });
  try {
    return await response.json();
  } catch {
    return { ok: false, error: { message: "Something went wrong. Please try again." } };
  }
}

// Send a message over the open notification socket (a `send` frame, answered by `ack` or
// `error` with the same client_id). Resolves to the ack's or the error's frame, or to null
// when no socket is open (the caller then posts the form instead). A socket that closes
// before the answer leaves the outcome unknown: `{ type: "error", code: "unconfirmed" }`.
let clientIds = 0;

function sendOverSocket(to, body) {
  const clientId = `m${Date.now().toString(36)}-${(clientIds += 1)}`;
  const frame = { type: "send", client_id: clientId, to, body };
  return new Promise((resolve) => {
    const done = (answer) => {
      document.removeEventListener("notify:ack", onAnswer);
      document.removeEventListener("notify:error", onAnswer);
      document.removeEventListener("notify:closed", onClosed);
      clearTimeout(timer);
      resolve(answer);
    };
    const onAnswer = (event) => {
      if (event.detail && event.detail.client_id === clientId) done(event.detail);
    };
    const unconfirmed = {
      type: "error",
      code: "unconfirmed",
      message: "Your message was not confirmed (the connection dropped or is too slow). "
        + "Reload the page to check whether it was sent.",
    };
    const onClosed = () => done(unconfirmed);
    const timer = setTimeout(() => done(unconfirmed), 15000);
    document.addEventListener("notify:ack", onAnswer);
    document.addEventListener("notify:error", onAnswer);
    document.addEventListener("notify:closed", onClosed);
    document.dispatchEvent(new CustomEvent("notify:send", { detail: frame }));
    if (!frame.sent) done(null);
  });
}

// --- Presence ------------------------------------------------------------------------------

function presenceText(frame) {
  if (frame.state === "playing") return "Playing at a table";
  if (frame.state === "online") return "Online";
  if (frame.last_seen) {
    const seconds = (Date.now() - Date.parse(frame.last_seen)) / 1000;
    if (seconds < 90) return "Last seen just now";
    return `Last seen ${timeFormat.format(new Date(frame.last_seen))}`;
  }
  return "Offline";
}

function renderPresence(container, frame) {
  container.replaceChildren();
  const span = document.createElement("span");
  span.className = `social-presence social-presence-${frame.state}`;
  span.dataset.presence = "";
  span.textContent = presenceText(frame);
  container.append(span);
  if (frame.state === "playing" && frame.table && frame.table.url) {
    const link = document.createElement("a");
    link.className = "social-presence-watch";
    link.href = frame.table.url;
    link.textContent = "Watch";
    container.append(" ", link);
  }
}

// --- Conversation page -----------------------------------------------------------------------

function initConversation(root) {
  const list = document.getElementById("messages-list");
  const log = document.getElementById("message-log");
  const form = document.getElementById("composer");
  const empty = document.getElementById("conversation-empty");
  const withId = Number(root.dataset.withId);
  const meId = Number(root.dataset.meId);
  let conversationId = Number(root.dataset.conversationId) || null;
  let pendingRead = 0;

  const nearBottom = () => log.scrollHeight - log.scrollTop - log.clientHeight < 80;
  const scrollDown = () => { log.scrollTop = log.scrollHeight; };

  function renderMessage(message) {
    const mine = message.sender.id === meId;
    const li = document.createElement("li");
    li.className = `chat-message${mine ? " is-mine" : ""}`;
    li.dataset.messageId = String(message.id);
    const meta = document.createElement("span");
    meta.className = "chat-meta";
    const author = document.createElement("span");
    author.className = "chat-author";
    author.textContent = mine ? "You" : message.sender.name;
    const time = document.createElement("time");
    time.dateTime = message.created_at;
    time.textContent = timeFormat.format(new Date(message.created_at));
    meta.append(author, " ", time);
    const body = document.createElement("p");
    body.className = "chat-body";
    body.append(linkify(message.body));
    li.append(meta, body);
    return li;
  }

  function addMessage(message) {
    if (list.querySelector(`[data-message-id="${message.id}"]`)) return;
    const stick = nearBottom();
    const node = renderMessage(message);
    const later = [...list.children].find((li) => Number(li.dataset.messageId) > message.id);
    list.insertBefore(node, later || null);
    if (empty) empty.hidden = true;
    if (stick || message.sender.id === meId) scrollDown();
  }

  function markRead(upTo) {
    pendingRead = Math.max(pendingRead, upTo);
    if (!conversationId || document.visibilityState !== "visible" || !pendingRead) return;
    const frame = { type: "read", conversation: conversationId, up_to: pendingRead };
    document.dispatchEvent(new CustomEvent("notify:send", { detail: frame }));
    if (!frame.sent && root.dataset.readUrl) {
      const body = new FormData();
      body.append("up_to", String(pendingRead));
      fetch(root.dataset.readUrl, {
        method: "POST",
        headers: { Accept: "application/json", "X-CSRFToken": csrfToken() },
        body,
        credentials: "same-origin",
      });
    }
    pendingRead = 0;
  }

  function setConversation(id) {
    if (conversationId || !id) return;
    conversationId = id;
    root.dataset.conversationId = String(id);
    root.dataset.readUrl = `/messages/c/${id}/read/`;
    root.dataset.historyUrl = `/messages/c/${id}/history/`;
  }

  document.addEventListener("notify:message", (event) => {
    const frame = event.detail;
    if (!frame.with || frame.with.id !== withId) return;
    setConversation(frame.message.conversation);
    addMessage(frame.message);
    if (!frame.mine) markRead(frame.message.id);
  });
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible" && pendingRead) markRead(pendingRead);
  });

  if (form) {
    const textarea = form.querySelector("textarea");
    const counter = form.querySelector("[data-counter]");
    const error = document.getElementById("message-error");
    const button = form.querySelector("button[type=submit]");
    const max = Number(textarea.maxLength) || 2000;
    const count = () => { counter.textContent = String(textarea.value.length); };
    textarea.addEventListener("input", count);
    count();
    textarea.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        form.requestSubmit();
      }
    });
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const text = textarea.value.trim();
      if (!text) {
        error.textContent = "Write a message first.";
        error.hidden = false;
        return;
      }
      if (text.length > max) {
        error.textContent = `A message can be at most ${max} characters.`;
        error.hidden = false;
        return;
      }
      button.disabled = true;
      try {
        // The open socket first (no HTTP request per message); the form post otherwise.
        const answer = await sendOverSocket(withId, text);
        const data = answer === null
          ? await postForm(window.location.pathname, form)
          : answer.type === "ack"
            ? { ok: true, message: answer.message }
            : { ok: false, error: answer };
        if (data.ok) {
          error.hidden = true;
          textarea.value = "";
          count();
          setConversation(data.message.conversation);
          addMessage(data.message);
        } else {
          error.textContent = (data.error && data.error.message) || "Your message was not sent.";
          error.hidden = false;
        }
      } catch {
        error.textContent = "Your message was not sent: check your connection and try again.";
        error.hidden = false;
      } finally {
        button.disabled = false;
        textarea.focus();
      }
    });
  }

  const older = document.getElementById("load-older");
  if (older) {
    older.addEventListener("click", async (event) => {
      event.preventDefault();
      if (!root.dataset.historyUrl) return;
      older.setAttribute("aria-busy", "true");
      const url = `${root.dataset.historyUrl}?before=${encodeURIComponent(older.dataset.before)}`;
      const response = await fetch(url, { headers: { Accept: "application/json" } });
      older.removeAttribute("aria-busy");
      if (!response.ok) return;
      const data = await response.json();
      const height = log.scrollHeight;
      const first = list.firstElementChild;
      for (const message of data.messages) {
        if (!list.querySelector(`[data-message-id="${message.id}"]`)) {
          list.insertBefore(renderMessage(message), first);
        }
      }
      log.scrollTop += log.scrollHeight - height;
      if (data.messages.length) older.dataset.before = String(data.messages[0].id);
      older.href = `?before=${older.dataset.before}`;
      if (!data.has_more) older.parentElement.hidden = true;
    });
  }

  document.addEventListener("notify:presence", (event) => {
    const holder = root.querySelector(`[data-presence-for="${event.detail.user.id}"]`);
    if (holder) renderPresence(holder, event.detail);
  });

  scrollDown();
}

// --- Inbox -----------------------------------------------------------------------------------

function initInbox(listEl) {
  const template = document.getElementById("conversation-item-template");
  const empty = document.getElementById("inbox-empty");

  function setUnread(item, count) {
    const badge = item.querySelector("[data-unread]");
    badge.replaceChildren(String(count));
    const hidden = document.createElement("span");
    hidden.className = "visually-hidden";
    hidden.textContent = " unread";
    badge.append(hidden);
    badge.hidden = !count;
    item.classList.toggle("is-unread", count > 0);
  }

  document.addEventListener("notify:message", (event) => {
    const frame = event.detail;
    let item = listEl.querySelector(`[data-with-id="${frame.with.id}"]`);
    if (!item) {
      item = template.content.firstElementChild.cloneNode(true);
      item.dataset.withId = String(frame.with.id);
      item.querySelector("a").href = `/messages/with/${encodeURIComponent(frame.with.username)}/`;
      item.querySelector(".conversation-name").textContent = frame.with.name;
      item.querySelector(".conversation-handle").textContent = `@${frame.with.username}`;
    }
    item.dataset.conversationId = String(frame.message.conversation);
    const body = frame.message.body;
    const preview = body.length > 120 ? `${body.slice(0, 119)}…` : body;
    item.querySelector("[data-preview]").textContent = frame.mine ? `You: ${preview}` : preview;
    const time = item.querySelector("[data-time]");
    time.dateTime = frame.message.created_at;
    time.textContent = "now";
    if (frame.unread) setUnread(item, frame.unread.count);
    listEl.prepend(item);
    if (empty) empty.hidden = true;
  });

  document.addEventListener("notify:unread", (event) => {
    const frame = event.detail;
    const item = listEl.querySelector(`[data-conversation-id="${frame.conversation}"]`);
    if (!item) return;
    if (frame.deleted) {
      item.remove();
      if (empty) empty.hidden = listEl.children.length > 0;
    } else {
      setUnread(item, frame.count);
    }
  });
}

// --- Contacts page -----------------------------------------------------------------------------

function initContacts() {
  const incoming = document.getElementById("incoming-list");
  const contactsList = document.getElementById("contact-list");
  const template = document.getElementById("incoming-template");
  const urls = document.getElementById("social-urls").dataset;
  const note = document.getElementById("contacts-live-note");

  const syncEmpty = () => {
    for (const [listId, emptyId] of [["incoming-list", "incoming-empty"],
      ["outgoing-list", "outgoing-empty"], ["contact-list", "contacts-empty"]]) {
      const listEl = document.getElementById(listId);
      const emptyEl = document.getElementById(emptyId);
      if (listEl && emptyEl) emptyEl.hidden = listEl.children.length > 0;
    }
  };
  const say = (text) => {
    note.textContent = text;
    note.hidden = false;
  };

  document.addEventListener("notify:presence", (event) => {
    const frame = event.detail;
    const row = contactsList.querySelector(`[data-user-id="${frame.user.id}"]`);
    if (!row) return;
    renderPresence(row.querySelector(".social-presence-line"), frame);
  });

  document.addEventListener("notify:contact_request", (event) => {
    const frame = event.detail;
    if (frame.event === "received") {
      if (incoming.querySelector(`[data-request-id="${frame.request.id}"]`)) return;
      const row = template.content.firstElementChild.cloneNode(true);
      row.dataset.requestId = String(frame.request.id);
      const link = row.querySelector(".person-name a");
      link.href = frame.request.user.url;
      link.textContent = frame.request.user.name;
      row.querySelector(".person-name .muted").textContent = `@${frame.request.user.username}`;
      row.querySelector("[data-action=accept]").action =
        urls.accept.replace("/0/", `/${frame.request.id}/`);
      row.querySelector("[data-action=decline]").action =
        urls.decline.replace("/0/", `/${frame.request.id}/`);
      incoming.prepend(row);
      say(`New contact request from ${frame.request.user.name}.`);
    } else if (frame.event === "removed") {
      document.querySelectorAll(`[data-request-id="${frame.request.id}"]`)
        .forEach((row) => row.remove());
    }
    syncEmpty();
  });

  document.addEventListener("notify:contact", (event) => {
    const frame = event.detail;
    if (frame.event === "removed") {
      const row = contactsList.querySelector(`[data-user-id="${frame.user.id}"]`);
      if (row) row.remove();
    } else if (frame.event === "added") {
      if (contactsList.querySelector(`[data-user-id="${frame.user.id}"]`)) return;
      const row = document.createElement("li");
      row.className = "person";
      row.dataset.userId = String(frame.user.id);
      const name = document.createElement("span");
      name.className = "person-name";
      const link = document.createElement("a");
      link.href = frame.user.url;
      link.textContent = frame.user.name;
      const handle = document.createElement("span");
      handle.className = "muted";
      handle.textContent = `@${frame.user.username}`;
      const line = document.createElement("span");
      line.className = "social-presence-line";
      renderPresence(line, frame);
      name.append(link, " ", handle, " ", line);
      const actions = document.createElement("span");
      actions.className = "person-actions";
      const message = document.createElement("a");
      message.className = "button button-small";
      message.href = `/messages/with/${encodeURIComponent(frame.user.username)}/`;
      message.textContent = "Message";
      actions.append(message);
      row.append(name, actions);
      contactsList.prepend(row);
      say(`${frame.user.name} is now one of your contacts.`);
    }
    syncEmpty();
  });
}

// --- Dispatch ----------------------------------------------------------------------------------

const conversation = document.getElementById("conversation");
if (conversation) initConversation(conversation);
const inbox = document.getElementById("conversation-list");
if (inbox) initInbox(inbox);
if (document.getElementById("contact-list")) initContacts();
export { postForm };
