// The turn clock: the frame says whose turn is timed and how much is left; the seats' timer
// bars count down from that between frames, and the player hears "Ten seconds left." once.

const LOW_MS = 10000;

/** The clock of a frame (``frame.clock``) as {seat, end, total}, ``end`` on ``now``'s scale. */
export function clockOf(frameClock, now) {
  if (!frameClock) return null;
  return { seat: frameClock.seat, end: now + (frameClock.remaining_ms || 0), total: (frameClock.seconds_per_turn || 30) * 1000 };
}

/** What ``seat``'s timer shows at ``now``: null (hidden) or {left, pct, secs, low}.
 *
 * The deadline may lie further ahead than one turn: the game's first turn has
 * ``GAMES_FIRST_TURN_EXTRA`` seconds more (time to load the page), and a turn running during
 * an outage gets the lost time back. That extra is a wait before the clock starts, not a
 * longer turn: the timer shows the full turn (never more) until the deadline is one turn
 * away, then counts down to it. */
export function timerView(clock, seat, now) {
  if (!clock || clock.seat !== seat) return null;
  const left = Math.max(0, Math.min(clock.total, clock.end - now));
  return {
    left,
    pct: Math.max(0, Math.min(100, (left / clock.total) * 100)),
    secs: Math.ceil(left / 1000),
    low: left < LOW_MS,
  };
}

/** Whether the page cannot know the clock: its socket is down. The site may be down (no
 * clock runs, and the time comes back) or only this connection (the clock runs): the timer
 * had gone on down to "0 s" under a banner saying that no clock might be running. */
export function clockUnknown(connState) {
  return connState === "offline" || connState === "reconnecting";
}

/** The timer's words: "12 s", or "?" while the clock is not known (``unknown``). */
export function timerWords(t, unknown) {
  return unknown
    ? { text: "?", label: "Not connected: the time left is not known" }
    : { text: `${t.secs} s`, label: `${t.secs} seconds left` };
}

export class Clock {
  constructor(ctrl) {
    this.ctrl = ctrl;
    this.state = null;
    this.warned = false;
    this.stoppedAt = null; // (the page's time when the socket went down: the bars stand there)
  }

  set(frameClock) {
    this.state = clockOf(frameClock, performance.now());
    this.warned = false;
    this.stoppedAt = null; // (a frame's clock is known again, the socket down or not)
  }

  render() {
    const ctrl = this.ctrl;
    const over = !ctrl.view || ctrl.view.is_over;
    // still unknown once the socket is back, until its snapshot sets the clock: counted on
    // from before the drop, it showed "0 s" and said "Ten seconds left." meanwhile
    if (clockUnknown(ctrl.connState) && this.stoppedAt === null) this.stoppedAt = performance.now();
    const unknown = this.stoppedAt !== null;
    const now = unknown ? this.stoppedAt : performance.now();
    for (const el of ctrl.root.querySelectorAll("[data-timer-seat]")) {
      const seat = Number(el.dataset.timerSeat);
      const t = over ? null : timerView(this.state, seat, now);
      el.hidden = !t;
      if (!t) continue;
      const words = timerWords(t, unknown);
      el.querySelector(".seat-timer-bar").style.width = `${t.pct}%`;
      el.querySelector(".seat-timer-text").textContent = words.text;
      el.classList.toggle("is-low", t.low && !unknown);
      el.classList.toggle("is-unknown", unknown);
      el.setAttribute("aria-label", words.label);
      if (unknown) continue;
      if (seat === ctrl.mySeat && t.low && t.left > 0 && !this.warned && ctrl.myTurn) {
        this.warned = true;
        ctrl.notices.announce("Ten seconds left.");
      }
    }
  }
}
