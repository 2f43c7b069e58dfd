// Pages of the social app: conversation, inbox, contacts. Progressive enhancement over plain
// forms: every action also works without this script. Live updates arrive as `notify:<type>`
// events from notify.js. User text goes into the page only through textContent and
// createTextNode; links are built as elements, http(s) only.

import { unsentRest } from "./draft.js";

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

// Times as the server writes them ("Dec 4, 19:23"), in the page's zone (the player's setting:
// accounts/middleware.py), so a message added live reads like the ones around it.
const timeFormat = (() => {
  const options = { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit", hourCycle: "h23" };
  try {
    return new Intl.DateTimeFormat("en-US", { ...options, timeZone: document.documentElement.dataset.timeZone || undefined });
  } catch {
    return new Intl.DateTimeFormat("en-US", options); // a zone this browser does not know
  }
})();

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
  if (frame.state === "playing") {
    return frame.table && frame.table.waiting ? "Waiting at a table" : "Playing at a table";
  }
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

// A conversation page's state, shared by the functions below: its elements, the two
// participants, the conversation id (null until the first message) and the highest message
// id waiting to be marked read.
function conversationOf(root) {
  return {
    root,
    list: document.getElementById("messages-list"),
    log: document.getElementById("message-log"),
    empty: document.getElementById("conversation-empty"),
    withId: Number(root.dataset.withId),
    meId: Number(root.dataset.meId),
    id: Number(root.dataset.conversationId) || null,
    pendingRead: 0,
  };
}

const nearBottom = (log) => log.scrollHeight - log.scrollTop - log.clientHeight < 80;
const scrollDown = (log) => { log.scrollTop = log.scrollHeight; };

function renderMessage(message, meId) {
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
  body.dir = "auto"; // (a line in Arabic or Hebrew reads in its own direction)
  body.append(linkify(message.body));
  li.append(meta, body);
  return li;
}

// Add a message in id order (once), keeping the log at the bottom if it was there.
function addMessage(conv, message) {
  if (conv.list.querySelector(`[data-message-id="${message.id}"]`)) return;
  const stick = nearBottom(conv.log);
  const node = renderMessage(message, conv.meId);
  const later = [...conv.list.children].find((li) => Number(li.dataset.messageId) > message.id);
  conv.list.insertBefore(node, later || null);
  if (conv.empty) conv.empty.hidden = true;
  if (stick || message.sender.id === conv.meId) scrollDown(conv.log);
}

// Mark read up to `upTo` while the page is visible: over the socket, or a form post.
function markRead(conv, upTo) {
  conv.pendingRead = Math.max(conv.pendingRead, upTo);
  if (!conv.id || document.visibilityState !== "visible" || !conv.pendingRead) return;
  const frame = { type: "read", conversation: conv.id, up_to: conv.pendingRead };
  document.dispatchEvent(new CustomEvent("notify:send", { detail: frame }));
  if (!frame.sent && conv.root.dataset.readUrl) {
    const body = new FormData();
    body.append("up_to", String(conv.pendingRead));
    fetch(conv.root.dataset.readUrl, {
      method: "POST",
      headers: { Accept: "application/json", "X-CSRFToken": csrfToken() },
      body,
      credentials: "same-origin",
    });
  }
  conv.pendingRead = 0;
}

// The first message made the conversation: learn its id and its endpoints.
function setConversation(conv, id) {
  if (conv.id || !id) return;
  conv.id = id;
  conv.root.dataset.conversationId = String(id);
  conv.root.dataset.readUrl = `/messages/c/${id}/read/`;
  conv.root.dataset.historyUrl = `/messages/c/${id}/history/`;
}

// Send the composer's text: the open socket first (no HTTP request per message), the form
// post otherwise. Resolves to `{ ok, message }` or `{ ok: false, error }`.
async function sendMessage(conv, form, text) {
  const answer = await sendOverSocket(conv.withId, text);
  if (answer === null) return postForm(window.location.pathname, form);
  if (answer.type === "ack") return { ok: true, message: answer.message };
  return { ok: false, error: answer };
}

function initComposer(conv, form) {
  const textarea = form.querySelector("textarea");
  const counter = form.querySelector("[data-counter]");
  const error = document.getElementById("message-error");
  const button = form.querySelector("button[type=submit]");
  const max = Number(textarea.maxLength) || 2000;
  const count = () => { counter.textContent = String(textarea.value.length); };
  const fail = (text) => {
    error.textContent = text;
    error.hidden = false;
  };
  textarea.addEventListener("input", count);
  count();
  // Enter sends where there is a keyboard with Shift; on a touch screen (no Shift+Enter)
  // Return starts a new line and the Send button sends
  const touch = window.matchMedia && window.matchMedia("(hover: none) and (pointer: coarse)").matches;
  const keys = form.querySelector("[data-enter-help]");
  if (touch && keys) keys.hidden = true;
  textarea.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing && !touch) {
      event.preventDefault();
      form.requestSubmit();
    }
  });
  let sending = false;
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (sending) return; // (Enter again while the last one is on its way: typed on, kept)
    const typed = textarea.value;
    const text = typed.trim();
    if (!text) return fail("Write a message first.");
    if (text.length > max) return fail(`A message can be at most ${max} characters.`);
    button.disabled = true;
    sending = true;
    try {
      const data = await sendMessage(conv, form, text);
      if (data.ok) {
        error.hidden = true;
        textarea.value = unsentRest(typed, textarea.value);
        count();
        setConversation(conv, data.message.conversation);
        addMessage(conv, data.message);
      } else {
        fail((data.error && data.error.message) || "Your message was not sent.");
      }
    } catch {
      fail("Your message was not sent: check your connection and try again.");
    } finally {
      sending = false;
      button.disabled = false;
      textarea.focus();
    }
  });
}

// "Load older": fetch the page before the oldest shown, keeping the view where it was.
function initLoadOlder(conv, older) {
  const { root, list, log } = conv;
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
        list.insertBefore(renderMessage(message, conv.meId), first);
      }
    }
    log.scrollTop += log.scrollHeight - height;
    if (data.messages.length) older.dataset.before = String(data.messages[0].id);
    older.href = `?before=${older.dataset.before}`;
    if (!data.has_more) older.parentElement.hidden = true;
  });
}

// Live updates: this conversation's messages (read at once when visible), presence.
function listenConversation(conv) {
  document.addEventListener("notify:message", (event) => {
    const frame = event.detail;
    if (!frame.with || frame.with.id !== conv.withId) return;
    setConversation(conv, frame.message.conversation);
    addMessage(conv, frame.message);
    if (!frame.mine) markRead(conv, frame.message.id);
  });
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible" && conv.pendingRead) {
      markRead(conv, conv.pendingRead);
    }
  });
  document.addEventListener("notify:presence", (event) => {
    const holder = conv.root.querySelector(`[data-presence-for="${event.detail.user.id}"]`);
    if (holder) renderPresence(holder, event.detail);
  });
}

function initConversation(root) {
  const conv = conversationOf(root);
  listenConversation(conv);
  const form = document.getElementById("composer");
  if (form) initComposer(conv, form);
  const older = document.getElementById("load-older");
  if (older) initLoadOlder(conv, older);
  scrollDown(conv.log);
  // a phone's keyboard opening shrinks the screen: the newest messages stay in view if they
  // were (they were left under the keyboard)
  let stuck = true;
  conv.log.addEventListener("scroll", () => { stuck = nearBottom(conv.log); }, { passive: true });
  const resized = () => { if (stuck) scrollDown(conv.log); };
  window.addEventListener("resize", resized);
  if (window.visualViewport) window.visualViewport.addEventListener("resize", resized);
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
    // (a new row of your own message, from your other tab, is read: the template's row is
    // unread until told)
    if (frame.unread) setUnread(item, frame.unread.count);
    else if (frame.mine && !item.isConnected) setUnread(item, 0);
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

// A contact request row for the "Requests to you" list, from the page's template.
function incomingRequestRow(template, urls, request) {
  const row = template.content.firstElementChild.cloneNode(true);
  row.dataset.requestId = String(request.id);
  const link = row.querySelector(".person-name a");
  link.href = request.user.url;
  link.textContent = request.user.name;
  row.querySelector(".person-name .muted").textContent = `@${request.user.username}`;
  row.querySelector("[data-action=accept]").action = urls.accept.replace("/0/", `/${request.id}/`);
  row.querySelector("[data-action=decline]").action =
    urls.decline.replace("/0/", `/${request.id}/`);
  return row;
}

// A row of the contact list for a `contact` frame (the user and their presence).
function contactRow(frame) {
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
  name.append(link, " ");
  if (frame.rating) {  // as the page's rows show it
    const rating = document.createElement("span");
    rating.className = "rating-tag";
    rating.title = "Classic Gin rating";
    rating.textContent = frame.rating;
    name.append(rating, " ");
  }
  name.append(handle, " ", line);
  row.append(name, contactActions(frame.user));
  return row;
}

// A contact's Message, Invite, Remove and Block, as the page's rows have them: the page's
// <template> holds them for the user "__username__" named "__name__".
function contactActions(user) {
  const template = document.getElementById("contact-actions-template");
  const actions = template.content.firstElementChild.cloneNode(true);
  const username = encodeURIComponent(user.username);
  for (const el of actions.querySelectorAll("[href], [action], [data-confirm]")) {
    if (el.hasAttribute("href")) el.setAttribute("href", el.getAttribute("href").replace("__username__", username));
    if (el.hasAttribute("action")) el.setAttribute("action", el.getAttribute("action").replace("__username__", username));
    if (el.dataset.confirm) el.dataset.confirm = el.dataset.confirm.replace("__name__", user.name);
  }
  return actions;
}

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
      incoming.prepend(incomingRequestRow(template, urls, frame.request));
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
      contactsList.prepend(contactRow(frame));
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
