// Keeping the table in sync with the server, with no browser needed: which frames to render
// (versions and gaps), move ids, the move waiting for its answer, reconnect delays. The frames
// themselves are built by games/frames.py; the socket (socket.js) uses these.

/**
 * Decides what to do with each versioned frame (docs/protocol.md "Versions and gaps").
 * ``consider`` returns {render, gap}: render=false for a stale frame; gap=true when frames
 * were lost (render it anyway, it is complete, but do not animate its events).
 */
export class VersionTracker {
  constructor() {
    this.version = null;
  }

  consider(frame) {
    const v = frame && Number.isInteger(frame.version) ? frame.version : null;
    if (v === null) return { render: false, gap: false };
    if (this.version === null) {
      this.version = v;
      return { render: true, gap: frame.type !== "snapshot" };
    }
    if (frame.type === "snapshot") {
      // a snapshot is the complete truth: accept it unless it is older than what we show
      if (v < this.version) return { render: false, gap: false };
      const gap = v > this.version + 1;
      this.version = v;
      return { render: true, gap };
    }
    if (v <= this.version) return { render: false, gap: false };
    const gap = v > this.version + 1;
    this.version = v;
    return { render: true, gap };
  }

  reset() {
    this.version = null;
  }
}

/** Unique move ids ("<session>-<n>", at most 40 characters) so retries are recognised. */
export class ActionIds {
  constructor(session = Math.random().toString(36).slice(2, 10)) {
    this.session = String(session).slice(0, 24);
    this.n = 0;
  }

  next() {
    this.n += 1;
    return `m-${this.session}-${this.n}`.slice(0, 40);
  }
}

/** Exponential reconnect delays with jitter: 0.5 s, 1 s, 2 s, ... up to ``max``. */
export class Backoff {
  // (at most 8 s +-20 %: a site back from a restart gives every running turn 30 s,
  // games/conf.py OUTAGE_RESUME, and a page must be back within it)
  constructor({ base = 500, max = 8000, random = Math.random } = {}) {
    this.base = base;
    this.max = max;
    this.random = random;
    this.attempt = 0;
  }

  next() {
    const raw = Math.min(this.max, this.base * 2 ** this.attempt);
    this.attempt += 1;
    // +-20 % so that a restarted server is not hit by every client at the same instant
    return Math.round(raw * (0.8 + 0.4 * this.random()));
  }

  reset() {
    this.attempt = 0;
  }
}

/**
 * A pending move waits for the server: it is settled by its ack or error (same id), or by
 * any rendered frame newer than the version it was sent at (the server moved on).
 */
export class PendingMove {
  constructor() {
    this.current = null;
  }

  start(id, action, version) {
    this.current = { id, action, version, at: Date.now() };
  }

  get busy() {
    return this.current !== null;
  }

  settleById(id) {
    if (this.current && this.current.id === id) {
      const c = this.current;
      this.current = null;
      return c;
    }
    return null;
  }

  settleByVersion(version) {
    if (this.current && version > this.current.version) {
      const c = this.current;
      this.current = null;
      return c;
    }
    return null;
  }

  clear() {
    this.current = null;
  }
}
