// The local transport: the table app (static/js/table/app.js) talks to it exactly as to the
// socket (socket.js): the same handlers, the same frames (docs/protocol.md), built in the
// engine worker by games/local/table.py from the project's own engine and bots. Every move's
// new state is saved in IndexedDB before it is shown, so a reload or a closed app resumes.

import { saveGame } from "./store.js";

// Computers move after a short pause, like online (GAMES_BOT_DELAY, 0.6-1.5 s).
const BOT_DELAY_MS = [600, 1100];

function botDelay() {
  const forced = Number(localStorage.getItem("gin.offline.botDelayMs"));
  if (Number.isFinite(forced) && forced >= 0 && localStorage.getItem("gin.offline.botDelayMs") !== null) return forced;
  return BOT_DELAY_MS[0] + Math.random() * (BOT_DELAY_MS[1] - BOT_DELAY_MS[0]);
}

export class LocalTransport {
  /** engine: LocalEngine; doc: the saved game; opts: {onSaved(doc), rematch(doc) → URL}. */
  constructor(engine, doc, handlers, opts = {}) {
    this.engine = engine;
    this.doc = doc;
    this.h = handlers;
    this.opts = opts;
    this.waiting = false;
    this.busy = false;
    this.botTimer = null;
    this.version = doc.version;
    this.stopped = false;
    this.moveTimes = [];
  }

  /** As the socket's: whether a move of the person is on its way. */
  get pending() {
    return { busy: this.busy };
  }

  start() {
    this.h.status && this.h.status("local");
    this.engine.call("frame", { doc: this.doc }).then((r) => this.apply(r, "snapshot"));
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.botTimer);
  }

  reconnectNow() {}

  /** The answer of a move: save, show, and let the next computer move. */
  async apply(r, kind) {
    if (this.stopped) return;
    if (!r.ok) {
      this.busy = false;
      this.h.error && this.h.error({ type: "error", code: "illegal_action", message: r.error }, null);
      return;
    }
    if (r.doc) {
      const fin = r.frame.table.finish;
      this.doc = { ...r.doc, updated_at: Date.now(), summary: fin || null, synced: false };
      if (this.doc.status === "finished") {
        // the record the upload sends: the engine's replayable record with the players
        const rec = await this.engine.call("record", { doc: this.doc });
        if (rec.ok) this.doc.record = rec.record;
      }
      await saveGame(this.doc);
      if (this.opts.onSaved) this.opts.onSaved(this.doc);
    }
    this.version = r.frame.version;
    this.frame = r.frame;
    this.busy = false;
    this.h.frame(r.frame, { gap: false });
    if (kind === "state" && this.h.ack) this.h.ack({ type: "ack", version: r.frame.version }, null);
    this.scheduleBot(r.bot_seat);
  }

  scheduleBot(seat) {
    clearTimeout(this.botTimer);
    if (seat === null || seat === undefined || this.doc.status !== "playing") return;
    this.botTimer = setTimeout(async () => {
      const t0 = performance.now();
      const r = await this.engine.call("bot", { doc: this.doc });
      this.moveTimes.push({ level: this.doc.level, ms: performance.now() - t0, engineMs: r.ms });
      await this.apply(r, "state");
    }, botDelay());
  }

  /** The table app's messages other than moves. */
  send(obj) {
    if (!obj || typeof obj !== "object") return false;
    if (obj.type === "resign") {
      clearTimeout(this.botTimer);
      this.engine.call("resign", { doc: this.doc }).then((r) => this.apply(r, "state"));
      return true;
    }
    if (obj.type === "rematch" && obj.accept !== false && this.opts.rematch && this.frame) {
      // "Play again": a new saved game with the same settings, opened as a rematch table is
      this.opts.rematch(this.doc).then((url) => {
        if (!url || this.stopped) return;
        const t = this.frame.table;
        this.h.frame({ ...this.frame, type: "snapshot", table: { ...t, rematch: { offers: [], table_id: null, url } } }, { gap: false });
      });
      return true;
    }
    if (obj.type === "hint") {
      this.engine.call("hint", { doc: this.doc }).then((r) => {
        if (r.ok && this.h.hint) this.h.hint(r.hint);
        else if (!r.ok && this.h.error) this.h.error({ type: "error", code: "not_your_turn", message: r.error, id: null }, null);
      });
      return true;
    }
    if (obj.type === "snapshot") {
      this.engine.call("frame", { doc: this.doc }).then((r) => r.ok && this.h.frame(r.frame, { gap: false }));
      return true;
    }
    return true; // ping, chat and the like: nothing to do without a server
  }

  /** A move of the person; returns an id, or null while another is on its way. */
  act(action) {
    if (this.busy || this.doc.status !== "playing") return null;
    this.busy = true;
    const id = `l-${Date.now()}`;
    this.engine.call("act", { doc: this.doc, action }).then((r) => this.apply(r, "state"));
    return id;
  }
}
