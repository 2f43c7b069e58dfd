// The table socket: connects, keeps the latest complete frame, reconnects with backoff and
// resumes from the server's snapshot. Moves are not optimistic: the UI waits for the frame.
//
// Lost frames are found, not waited out: every pong carries the table's version, and while
// the page waits for another seat to move it pings after WAIT_PING_MS of silence, so a frame
// the server could not deliver is replaced by a snapshot within seconds.
//
// A dead socket is found too: the server answers every ping at once, so a ping unanswered for
// DEAD_MS (a network that went away without closing the socket: a phone changing networks, a
// laptop's Wi-Fi off) drops the socket and reconnects, saying "offline" on the page instead of
// "Live"; so does the browser's own "offline" event.

import { Liveness } from "./liveness.js";
import { ActionIds, Backoff, PendingMove, VersionTracker } from "./sync.js";

export const PING_MS = 10000;
export const WAIT_PING_MS = 4000;
export { DEAD_MS } from "./liveness.js";
const TICK_MS = 1000;
const MOVE_TIMEOUT_MS = 10000;
// A move refused as "unavailable" (the server could not store it) is sent again with the same
// id after these pauses; "duplicate" then means it was applied after all.
export const RETRY_MS = [1000, 2000, 4000];

/** What the page says of a socket the server closed for good (docs/protocol.md): no
 * reconnecting. */
export const REFUSALS = {
  4403: "You may not open this table.",
  4404: "There is no such table (a private table opens only from its invite link).",
  4410: "This private game has started: it is for its players alone.", // (games.services.locking.PRIVATE_STARTED)
};

export class TableSocket {
  /**
   * url: full ws(s) URL. handlers: {frame(frame, {gap}), chat(msg), presence(frame),
   * error(frame, pending), status(state, detail), ack(frame, pending), closed(code)}
   */
  constructor(url, handlers) {
    this.url = url;
    this.h = handlers;
    this.tracker = new VersionTracker();
    this.ids = new ActionIds();
    this.backoff = new Backoff();
    this.pending = new PendingMove();
    this.ws = null;
    this.stopped = false;
    this.pingTimer = null;
    this.retryTimer = null;
    this.moveTimer = null;
    this.retryMoveTimer = null;
    this.state = "connecting";
    // Set by the page: true while it waits for another seat's move (pings come sooner).
    this.waiting = false;
    this.lastFrameAt = 0;
    this.liveness = new Liveness();
    this.lastPingAt = 0;
  }

  get version() {
    return this.tracker.version;
  }

  start() {
    this.stopped = false;
    this.open();
    document.addEventListener("visibilitychange", () => {
      // phones freeze background tabs: on return, make sure we are live and up to date
      if (document.visibilityState === "visible") {
        if (!this.ws || this.ws.readyState > 1) this.reconnectNow();
        else this.send({ type: "snapshot" });
      }
    });
    window.addEventListener("online", () => this.reconnectNow());
    window.addEventListener("offline", () => this.drop());
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    clearInterval(this.pingTimer);
    if (this.ws) this.ws.close(1000);
  }

  setStatus(state, detail) {
    this.state = state;
    if (this.h.status) this.h.status(state, detail);
  }

  open() {
    clearTimeout(this.retryTimer);
    this.setStatus(this.backoff.attempt ? "reconnecting" : "connecting");
    let ws;
    try {
      ws = new WebSocket(this.url);
    } catch (err) {
      this.scheduleReconnect();
      return;
    }
    this.ws = ws;
    ws.addEventListener("open", () => {
      if (ws !== this.ws) return;
      this.backoff.reset();
      this.setStatus("open");
      clearInterval(this.pingTimer);
      this.lastFrameAt = this.lastPingAt = Date.now();
      this.liveness.heard();
      this.pingTimer = setInterval(() => this.tick(Date.now()), TICK_MS);
    });
    ws.addEventListener("message", (e) => {
      if (ws !== this.ws) return;
      let frame;
      try {
        frame = JSON.parse(e.data);
      } catch (err) {
        return;
      }
      if (frame && typeof frame === "object") this.onFrame(frame);
    });
    ws.addEventListener("close", (e) => {
      if (ws !== this.ws) return;
      clearInterval(this.pingTimer);
      this.ws = null;
      if (this.h.closed) this.h.closed(e.code);
      if (this.stopped) return;
      if (REFUSALS[e.code]) {
        this.setStatus("refused", REFUSALS[e.code]);
        return;
      }
      this.scheduleReconnect();
    });
  }

  /** Ping every PING_MS, and after WAIT_PING_MS of silence while waiting for a move; a ping
   * unanswered for DEAD_MS drops the socket. */
  tick(now) {
    if (this.liveness.dead(now)) {
      this.drop();
      return;
    }
    const sincePing = now - this.lastPingAt;
    const silent = now - this.lastFrameAt >= WAIT_PING_MS;
    if (sincePing >= PING_MS || (this.waiting && silent && sincePing >= WAIT_PING_MS)) {
      this.ping(now);
    }
  }

  ping(now = Date.now()) {
    if (this.send({ type: "ping", t: now })) {
      this.lastPingAt = now;
      this.liveness.pinged(now);
    }
  }

  /** The socket is gone though it never closed: let it go, give up the move it carried (the
   * snapshot after the reconnect says whether it was applied) and reconnect with backoff. */
  drop() {
    const ws = this.ws;
    if (!ws || this.stopped) return;
    this.ws = null;
    clearInterval(this.pingTimer);
    this.liveness.heard();
    try {
      ws.close(4000);
    } catch (err) {
      // closing already
    }
    if (this.pending.busy) {
      clearTimeout(this.moveTimer);
      clearTimeout(this.retryMoveTimer);
      this.pending.clear();
      if (this.h.settled) this.h.settled();
    }
    if (this.h.closed) this.h.closed(1006);
    this.scheduleReconnect();
  }

  scheduleReconnect() {
    if (this.stopped) return;
    if (typeof navigator !== "undefined" && navigator.onLine === false) {
      // no network: an attempt could only fail (each logged an error); "online" reconnects
      clearTimeout(this.retryTimer);
      this.setStatus("offline", null);
      return;
    }
    const delay = this.backoff.next();
    this.setStatus("offline", delay);
    this.retryTimer = setTimeout(() => this.open(), delay);
  }

  reconnectNow() {
    if (this.stopped) return;
    if (this.ws && this.ws.readyState <= 1) return;
    clearTimeout(this.retryTimer);
    this.open();
  }

  send(obj) {
    if (!this.ws || this.ws.readyState !== 1) return false;
    this.ws.send(JSON.stringify(obj));
    return true;
  }

  /** Send a move; returns its id, or null when offline or another move is still waiting. */
  act(action) {
    if (this.pending.busy || this.version === null) return null;
    const id = this.ids.next();
    if (!this.send({ type: "action", action, version: this.version, id })) return null;
    this.pending.start(id, action, this.version);
    this.watchMove(id);
    return id;
  }

  watchMove(id) {
    clearTimeout(this.moveTimer);
    this.moveTimer = setTimeout(() => {
      // no answer: forget the move and ask for the truth
      if (this.pending.settleById(id)) {
        this.send({ type: "snapshot" });
        if (this.h.settled) this.h.settled();
      }
    }, MOVE_TIMEOUT_MS);
  }

  /** The server could not store the move: send it again, same id, after a pause. */
  retryMove(p) {
    const tries = (p.tries || 0) + 1;
    if (tries > RETRY_MS.length) return false;
    this.pending.current = { ...p, tries };
    clearTimeout(this.moveTimer);
    clearTimeout(this.retryMoveTimer);
    this.retryMoveTimer = setTimeout(() => {
      const c = this.pending.current;
      if (!c || c.id !== p.id) return;
      if (!this.send({ type: "action", action: c.action, version: c.version, id: c.id })) {
        this.pending.clear();
        if (this.h.settled) this.h.settled();
        return;
      }
      this.watchMove(c.id);
    }, RETRY_MS[tries - 1]);
    return true;
  }

  onFrame(frame) {
    this.lastFrameAt = Date.now();
    this.liveness.heard();
    switch (frame.type) {
      case "snapshot":
      case "state": {
        const { render, gap } = this.tracker.consider(frame);
        if (!render) return;
        if (this.pending.settleByVersion(frame.version)) clearTimeout(this.moveTimer);
        if (frame.type === "snapshot" && this.pending.busy) {
          // after a reconnect the snapshot is the truth; the move was applied or it was not
          this.pending.clear();
        }
        this.h.frame(frame, { gap });
        // frames were lost: the state frame is complete, but chat and presence may have been
        // lost too, so ask for a fresh snapshot
        if (gap && frame.type === "state") this.send({ type: "snapshot" });
        return;
      }
      case "ack": {
        const p = this.pending.settleById(frame.id);
        if (p) clearTimeout(this.moveTimer);
        if (this.h.ack) this.h.ack(frame, p);
        if (Number.isInteger(frame.version) && this.version !== null && frame.version > this.version + 1) {
          this.send({ type: "snapshot" });
        }
        return;
      }
      case "error": {
        const p = frame.id ? this.pending.settleById(frame.id) : null;
        if (p) clearTimeout(this.moveTimer);
        if (p && frame.code === "unavailable" && this.retryMove(p)) return;
        if (this.h.error) this.h.error(frame, p);
        if (
          Number.isInteger(frame.version) && this.version !== null && frame.version !== this.version &&
          frame.code !== "stale_version" && frame.code !== "duplicate"
        ) {
          this.send({ type: "snapshot" });
        }
        return;
      }
      case "pong":
        // the table moved on without us: a frame was lost on the way
        if (Number.isInteger(frame.version) && this.version !== null && frame.version > this.version) {
          this.send({ type: "snapshot" });
        }
        return;
      case "chat":
        if (this.h.chat) this.h.chat(frame.message);
        return;
      case "presence":
        if (this.h.presence) this.h.presence(frame);
        return;
      case "hint":
        if (this.h.hint) this.h.hint(frame);
        return;
      default:
    }
  }
}

/** ws(s)://host/ws/table/<id>/?invite=... from the page's data. */
export function socketUrl(loc, wsPath, invite) {
  const proto = loc.protocol === "https:" ? "wss:" : "ws:";
  let url = `${proto}//${loc.host}${wsPath}`;
  if (invite) url += `?invite=${encodeURIComponent(invite)}`;
  return url;
}
