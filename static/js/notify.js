// The notification socket (/ws/notify/), loaded on every page for signed-in users.
//
// Keeps one WebSocket per tab, reconnects with backoff, sends the presence heartbeat, keeps
// the navigation's unread badge (#unread-badge) current and shows small notices for new
// messages, contact requests, table invitations and tournaments (your match is ready, with
// a link to the table; started, finished, cancelled). Every frame is re-dispatched on
// `document` as a `notify:<type>` CustomEvent, so page scripts (social.js) react without
// importing this module. Page scripts send frames by dispatching `notify:send` with the frame
// as `detail`; `detail.sent` is set to true when it went out (the conversation page sends
// messages this way, and its `ack` or `error` comes back as `notify:ack` / `notify:error`
// with the same client_id). User text is only ever put in the page with textContent.
// Frames: docs/protocol.md, "Notifications socket".

import { attention } from "./attention.js";
import { topBelow } from "./table/dom.js";
import { Liveness } from "./table/liveness.js";

// Created at once: the first click or key press on any page lets a later alert make a sound.
attention();

const badge = document.getElementById("unread-badge");
let socket = null;
let attempts = 0;
let pingTimer = null;
let reconnectTimer = null;
let heartbeat = 25;
let stopped = false;
let toastBox = null;

function csrfToken() {
  const match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
  if (match) return decodeURIComponent(match[1]);
  const input = document.querySelector("input[name=csrfmiddlewaretoken]");
  return input ? input.value : "";
}

function setBadge(count) {
  if (!badge || typeof count !== "number" || count < 0) return;
  badge.dataset.count = String(count);
  badge.textContent = count > 99 ? "99+" : String(count);
  badge.title = `${count} unread message${count === 1 ? "" : "s"}`;
  badge.hidden = count === 0;
  // On a phone the menu is folded: show the count on the menu button too.
  const toggle = document.querySelector("[data-nav-toggle]");
  if (toggle) {
    if (count > 0) {
      toggle.dataset.unread = count > 99 ? "99+" : String(count);
      toggle.setAttribute("aria-label", `Menu, ${badge.title}`);
    } else {
      delete toggle.dataset.unread;
      toggle.removeAttribute("aria-label");
    }
  }
}

function ensureStyles() {
  if (document.querySelector("link[data-social-css]")) return;
  if ([...document.styleSheets].some((s) => s.href && s.href.includes("/css/social"))) return;
  const link = document.createElement("link");
  link.rel = "stylesheet";
  link.href = new URL("../css/social.css", import.meta.url).href;
  link.dataset.socialCss = "";
  document.head.append(link);
}

function toasts() {
  if (!toastBox) {
    ensureStyles();
    toastBox = document.createElement("div");
    toastBox.className = "notify-toasts";
    toastBox.setAttribute("role", "status");
    toastBox.setAttribute("aria-live", "polite");
    document.body.append(toastBox);
  }
  return toastBox;
}

function dropToast(key) {
  for (const old of toasts().querySelectorAll(".notify-toast")) if (old.dataset.key === key) old.remove();
}

// ``key``: a toast of the same key already shown is replaced (one toast per table).
function toast({ title, text, href, linkText, actions = [], timeout = 8000, key = "", sticky = false }) {
  const box = document.createElement("div");
  box.className = "notify-toast";
  if (key) {
    box.dataset.key = key;
    dropToast(key);
  }
  const head = document.createElement("p");
  head.className = "notify-toast-title";
  head.textContent = title;
  box.append(head);
  if (text) {
    const body = document.createElement("p");
    body.className = "notify-toast-text";
    body.textContent = text;
    box.append(body);
  }
  const row = document.createElement("p");
  row.className = "notify-toast-actions";
  if (href) {
    const link = document.createElement("a");
    link.href = href;
    link.textContent = linkText || "Open";
    row.append(link);
  }
  for (const action of actions) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = `button button-small ${action.secondary ? "button-secondary" : ""}`;
    button.textContent = action.label;
    button.addEventListener("click", () => action.run(box));
    row.append(button);
  }
  const close = document.createElement("button");
  close.type = "button";
  close.className = "link-button notify-toast-close";
  close.textContent = "Dismiss";
  close.addEventListener("click", () => box.remove());
  row.append(close);
  box.append(row);
  const list = toasts();
  // At a table the corner is the player's hand (and, the game over, its result): the toast
  // stands under the table's bar instead (over the opponents' names). In play, one that
  // waits for an answer goes after 20 s (an invitation also waits on the home page). It
  // covered half the hand of a timed game on a phone, for good. A ``sticky`` one stays: a
  // tournament match that does not wait (at a game of their own, a player saw it go after
  // 20 s and lost the match as absent: an audit).
  const bar = document.querySelector(".tbl .tbl-bar");
  if (bar) {
    list.style.top = `${topBelow(bar)}px`;
    list.style.bottom = "auto";
    if (!timeout && !sticky && document.querySelector(".tbl[data-status=playing]")) timeout = 20000;
  } else {
    list.style.top = "";
    list.style.bottom = "";
  }
  list.append(box);
  if (timeout) setTimeout(() => box.remove(), timeout);
  return box;
}

async function postJSON(url) {
  const response = await fetch(url, {
    method: "POST",
    headers: { Accept: "application/json", "X-CSRFToken": csrfToken() },
    credentials: "same-origin",
  });
  let data = {};
  try {
    data = await response.json();
  } catch {
    data = { ok: false, error: { message: "Something went wrong. Please try again." } };
  }
  return data;
}

function viewingConversationWith(userId) {
  const root = document.getElementById("conversation");
  return root && Number(root.dataset.withId) === userId && document.visibilityState === "visible";
}

function onFrame(frame) {
  switch (frame.type) {
    case "hello":
      setBadge(frame.unread);
      if (Number.isInteger(frame.heartbeat) && frame.heartbeat > 0) heartbeat = frame.heartbeat;
      startPing();
      break;
    case "unread":
      setBadge(frame.total);
      // read in another tab (or deleted): its "New message" toast here is old news
      if (frame.count === 0) dropToast(`message-${frame.conversation}`);
      break;
    case "message":
      if (frame.unread) setBadge(frame.unread.total);
      if (!frame.mine && frame.with) {
        // a buzz, a sound, a notification (the tab is hidden or the player away): attention.js
        attention().alert("message", {
          title: `New message from ${frame.with.name}`,
          body: frame.message.body.length > 140 ? `${frame.message.body.slice(0, 140)}…` : frame.message.body,
          url: `/messages/with/${encodeURIComponent(frame.with.username)}/`,
          tag: `message-${frame.with.id}`,
        });
      }
      if (!frame.mine && frame.with && !viewingConversationWith(frame.with.id)
          && !document.getElementById("conversation-list")) {
        const body = frame.message.body;
        toast({
          title: `New message from ${frame.with.name}`,
          text: body.length > 140 ? `${body.slice(0, 140)}…` : body,
          href: `/messages/with/${encodeURIComponent(frame.with.username)}/`,
          linkText: "Reply",
          key: `message-${frame.message.conversation}`,
        });
      }
      break;
    case "contact_request":
      if (frame.event === "received" && !document.getElementById("incoming-list")) {
        toast({
          title: `${frame.request.user.name} wants to add you as a contact`,
          href: "/contacts/",
          linkText: "See requests",
        });
      }
      break;
    case "contact":
      // they accepted your request: nothing had told you (the contacts page says it itself)
      if (frame.event === "added" && frame.accepted && !document.getElementById("contact-list")) {
        toast({
          title: `${frame.user.name} accepted your contact request`,
          href: `/messages/with/${encodeURIComponent(frame.user.username)}/`,
          linkText: "Send a message",
        });
      }
      break;
    case "invitation":
      if (frame.event === "received") invitationToast(frame.invitation);
      else if (frame.event === "accepted") invitationAccepted(frame.invitation);
      else answerClosed("invitation", frame.event, frame.invitation);
      break;
    case "challenge":
      if (frame.event === "received") challengeToast(frame.challenge);
      else if (frame.event !== "sent") answerClosed("challenge", frame.event, frame.challenge);
      break;
    case "game_start":
      gameStart(frame);
      break;
    case "table_start":
      tableStart(frame);
      break;
    case "tournament":
      tournamentToast(frame);
      break;
    default:
      break;
  }
  document.dispatchEvent(new CustomEvent(`notify:${frame.type}`, { detail: frame }));
}

// An invitation or a challenge closed by the other side: its Accept/Decline toast goes (its
// Accept only answered "already cancelled"), and a sender learns that theirs was declined.
const CLOSED_WORDS = { cancelled: "cancelled", expired: "expired", declined: "declined" };

function answerClosed(kind, event, item) {
  if (!item || !CLOSED_WORDS[event]) return;
  const key = `${kind}-${item.id}`;
  const shown = [...toasts().querySelectorAll(".notify-toast")].some((t) => t.dataset.key === key);
  const mine = item.from && item.from.username === document.documentElement.dataset.username;
  if (shown && !mine) {
    toast({ title: `${item.from.name}'s ${kind} was ${CLOSED_WORDS[event]}`, key });
  } else if (mine && event === "declined") {
    toast({ title: `${(item.to && item.to.name) || "They"} declined your ${kind}`, key });
  }
}

// A toast with Accept (to the table) and Decline for something addressed to you: an
// invitation to a table or a challenge. ``base`` is its endpoint ("/invitations/12"), ``key``
// names it ("invitation-12"), so that its closing replaces it.
function answerToast({ title, text, base, gone, key }) {
  toast({
    title,
    text,
    key,
    timeout: 0,
    actions: [
      {
        label: "Accept",
        run: async (box) => {
          const data = await postJSON(`${base}/accept/`);
          if (data.ok && data.url) {
            window.location.assign(data.url);
          } else {
            box.querySelector(".notify-toast-text").textContent =
              (data.error && data.error.message) || gone;
          }
        },
      },
      {
        label: "Decline",
        secondary: true,
        run: async (box) => {
          await postJSON(`${base}/decline/`);
          box.remove();
        },
      },
    ],
  });
}

function invitationToast(invitation) {
  answerToast({
    title: `${invitation.from.name} invites you to a table`,
    text: invitation.table.name,
    base: `/invitations/${invitation.id}`,
    key: `invitation-${invitation.id}`,
    gone: "This invitation is no longer valid.",
  });
}

// A table of yours needs you (your clock runs there): an alert and a toast with its link, on
// every page but the table's own; one per table (``replace``: a newer call takes the place of
// an older one, else an existing one is kept).
function callToTable({ title, text, url, tableId, replace }) {
  if (!url || window.location.pathname === url) return;
  const key = `table-${tableId}`;
  if (!replace && [...toasts().querySelectorAll(".notify-toast")].some((t) => t.dataset.key === key)) return;
  attention().alert("match", { title, body: text, url, tag: key });
  toast({ title, text, href: url, linkText: "Go to the table", timeout: 0, key });
}

// A contact took the seat you invited them to (the one who accepted is on the way already:
// <html data-username> tells the two apart). When that filled the table, its table_start
// toast says more and is kept.
function invitationAccepted(invitation) {
  if (invitation.from.username !== document.documentElement.dataset.username) return;
  callToTable({ title: `${invitation.to.name} accepted your invitation`, text: invitation.table.name,
                url: invitation.table.url, tableId: invitation.table.id, replace: false });
}

// A table you waited at filled up and its game began (someone took the last seat, or it was
// given to the computer).
function tableStart(frame) {
  if (!frame.table) return;
  callToTable({ title: "Your game has started", text: frame.name, url: frame.table.url,
                tableId: frame.table.id, replace: true });
}

function challengeToast(challenge) {
  answerToast({
    title: `${challenge.from.name} challenges you`,
    text: `${challenge.mode}, ${challenge.seconds_per_turn} s a turn, ${challenge.rated ? "rated" : "casual"}`,
    base: `/challenges/${challenge.id}`,
    key: `challenge-${challenge.id}`,
    gone: "This challenge is no longer open.",
  });
}

// An accepted challenge's table is dealt: whoever waits on the Challenges page goes there;
// anywhere else a toast links to it (the person who accepted is already on their way).
function gameStart(frame) {
  if (!frame.table || window.location.pathname === frame.table.url) return;
  if (document.getElementById("challenges-outgoing")) {
    window.location.assign(frame.table.url);
    return;
  }
  attention().alert("match", {
    title: "Your challenge was accepted", body: "", url: frame.table.url,
    tag: `challenge-${frame.challenge}`,
  });
  toast({ title: "Your challenge was accepted", href: frame.table.url, linkText: "Play",
          timeout: 0 });
}

// How long a player on the finished table of their last match reads its result before they
// are taken to the next one (lila's arena does the same after a game).
const NEXT_MATCH_MS = 5000;

// A tournament of yours: whoever waits on its page goes to a match that is ready (as the
// Challenges page does: a player there is waiting for exactly this, and a match not opened
// in time is a no-show); so does one reading the result at a finished table (their last
// match's, most often: two winners left there lost a final as absent), after a few seconds
// and unless they choose to stay; anywhere else an alert and a toast link to it.
// The key of a tournament's "your match is ready" toast: one at a time, gone with the event.
function matchKey(t) {
  return `tournament-match:${t.url || t.id}`;
}

function tournamentToast(frame) {
  const t = frame.tournament || {};
  if (frame.event === "match" && frame.table) {
    if (window.location.pathname === frame.table.url) return;
    if (t.url && window.location.pathname === t.url) {
      window.location.assign(frame.table.url);
      return;
    }
    const app = document.getElementById("table-app");
    if (app && app.dataset.status === "playing" && !frame.lookedAgain) {
      // the notice can come before the frame that ends this table's game (the match that
      // ended here is what opened the next one): look again once that frame is in
      frame.lookedAgain = true;
      setTimeout(() => tournamentToast(frame), 1500);
      return;
    }
    const title = `Your match in ${t.name} is ready`;
    const against = frame.opponent ? `Against ${frame.opponent.name}` : "";
    attention().alert("match", { title, body: against, url: frame.table.url,
                                 tag: `match-${frame.table.url}` });
    if (app && (app.dataset.status === "finished" || app.dataset.status === "abandoned")) {
      const box = toast({
        title,
        text: `${against ? `${against}: t` : "T"}aking you there in ${NEXT_MATCH_MS / 1000} s…`,
        href: frame.table.url,
        linkText: "Play now",
        actions: [{ label: "Stay here", secondary: true, run: (b) => b.remove() }],
        timeout: 0,
      });
      setTimeout(() => {
        if (box.isConnected) window.location.assign(frame.table.url);
      }, NEXT_MATCH_MS);
      return;
    }
    // (a player on another page missed that the match does not wait: lost as absent two
    // minutes later, an audit)
    const go = "Go now: a player who does not come to the table loses the match.";
    toast({ title, text: against ? `${against}. ${go}` : go, href: frame.table.url, linkText: "Play", timeout: 0,
            sticky: true, key: matchKey(t) });
  } else if (frame.event === "started" || frame.event === "finished") {
    // a match that no longer asks for anything goes (its "Go now" stayed under "... has
    // finished": an audit)
    if (frame.event === "finished") dropToast(matchKey(t));
    if (window.location.pathname === t.url) return;
    // (a Swiss that ended before its last round says why: its players waited for a round)
    toast({ title: `${t.name} has ${frame.event}`, text: frame.reason || "", href: t.url, linkText: "See it" });
  } else if (frame.event === "cancelled") {
    dropToast(matchKey(t));
    toast({ title: `${t.name} is cancelled`, text: frame.reason || "", href: t.url,
      linkText: "See it", timeout: 0 });
  } else if (frame.event === "waiting") {
    // paired, its table opening once both players are free (the page says so itself)
    if (window.location.pathname === t.url) return;
    const against = frame.opponent ? `Against ${frame.opponent.name}. ` : "";
    toast({ title: `Your match in ${t.name} is paired`,
      text: `${against}It opens as soon as both of you are free: you are told when it does.`,
      href: t.url, linkText: "See it" });
  }
}

function send(frame) {
  if (socket && socket.readyState === WebSocket.OPEN) {
    socket.send(JSON.stringify(frame));
    return true;
  }
  return false;
}

// A ping the server has not answered by the next one (it answers at once) means the
// connection went away without closing (a phone that changed networks): drop it and reconnect,
// as on the browser's own "offline" event, so messages and presence come live again.
const liveness = new Liveness();

function startPing() {
  clearInterval(pingTimer);
  liveness.heard();
  pingTimer = setInterval(() => {
    if (liveness.dead(Date.now())) {
      drop();
      return;
    }
    if (send({ type: "ping" })) liveness.pinged(Date.now());
  }, heartbeat * 1000);
}

function drop() {
  const gone = socket;
  if (!gone) return;
  socket = null;
  try {
    gone.close(4000);
  } catch {
    // closing already
  }
  closed(1006);
}

function closed(code) {
  clearInterval(pingTimer);
  document.dispatchEvent(new CustomEvent("notify:closed"));
  if (code === 4401) {
    stopped = true; // signed out: nothing to reconnect to
    return;
  }
  attempts += 1;
  const delay = Math.min(30000, 1000 * 2 ** Math.min(attempts, 5)) * (0.75 + Math.random() / 2);
  clearTimeout(reconnectTimer);
  reconnectTimer = setTimeout(connect, delay);
}

function connect() {
  if (stopped || socket) return;
  // With no network (a phone on the offline page, a laptop with its Wi-Fi off) an attempt can
  // only fail, and each logged an error; the "online" event below connects again.
  if (navigator.onLine === false) return;
  const scheme = window.location.protocol === "https:" ? "wss:" : "ws:";
  const ws = new WebSocket(`${scheme}//${window.location.host}/ws/notify/`);
  socket = ws;
  ws.addEventListener("open", () => {
    attempts = 0;
  });
  ws.addEventListener("message", (event) => {
    if (ws !== socket) return;
    liveness.heard();
    let frame;
    try {
      frame = JSON.parse(event.data);
    } catch {
      return;
    }
    if (frame && typeof frame.type === "string") onFrame(frame);
  });
  ws.addEventListener("close", (event) => {
    if (ws !== socket) return; // (dropped already)
    socket = null;
    closed(event.code);
  });
}

// Forms that need a confirmation (block, remove, delete) carry data-confirm, on any page.
document.addEventListener("submit", (event) => {
  const form = event.target.closest("form[data-confirm]");
  if (form && !window.confirm(form.dataset.confirm)) event.preventDefault();
});
document.addEventListener("notify:send", (event) => {
  if (event.detail && typeof event.detail === "object") event.detail.sent = send(event.detail);
});
document.addEventListener("visibilitychange", () => {
  if (document.visibilityState === "visible" && !socket && !stopped) {
    clearTimeout(reconnectTimer);
    connect();
  }
});
window.addEventListener("offline", drop);
window.addEventListener("online", () => {
  if (!socket && !stopped) {
    clearTimeout(reconnectTimer);
    connect();
  }
});
window.addEventListener("pagehide", () => {
  if (socket) socket.close(1000);
});
window.addEventListener("pageshow", (event) => {
  if (event.persisted) connect();
});

ensureStyles();
if (badge) setBadge(Number(badge.dataset.count) || 0);
connect();
