// Attention: telling a player that the site needs them (your turn, your tournament match is
// ready, a new message) when they are looking elsewhere. Each way can be turned off on
// /settings/alerts/; the page carries the choices in #alert-preferences (JSON).
//
// - the tab title: "Your turn - Gin Rummy" for as long as it is your turn; for a match or a
//   message while the tab is hidden, until it is shown again;
// - vibration (phones): when the tab is hidden or the player has not touched the page for a
//   while (no buzz on every turn of someone who is playing);
// - a short sound, made with WebAudio (no file), and a system notification: only while the
//   tab is hidden. Browsers let a page make sound only after a click or a key press on it,
//   and notifications only once the player allowed them: ``requestPermission`` is called
//   from a click handler, never on its own.
//
// The browser's objects are passed in (``win``, ``doc``), so unit tests drive it without a
// browser (static/js/table/tests/attention.test.js).

export const DEFAULTS = Object.freeze({ sound: true, vibrate: true, notifications: true, title: true });
export const SITE = "Gin Rummy";
const IDLE_MS = 15000;
const TITLES = { turn: "Your turn", match: "Your match is ready", message: "New message" };
const VIBRATION = { turn: [180], match: [160, 90, 160], message: [90, 60, 90] };
// Two short notes per alert (hertz): rising for your turn, a chime for a match, low for a message.
const NOTES = { turn: [660, 880], match: [523, 784], message: [587, 494] };

/** The player's choices from the page (``#alert-preferences``), else the defaults. */
export function readPreferences(doc) {
  const el = doc && doc.getElementById ? doc.getElementById("alert-preferences") : null;
  if (!el) return { ...DEFAULTS };
  try {
    const data = JSON.parse(el.textContent);
    const out = { ...DEFAULTS };
    for (const key of Object.keys(DEFAULTS)) if (typeof data[key] === "boolean") out[key] = data[key];
    return out;
  } catch {
    return { ...DEFAULTS };
  }
}

/** The tab's title for an alert: "Your turn - Gin Rummy". */
export function alertTitle(kind, text) {
  return `${text || TITLES[kind] || "Gin Rummy"} - ${SITE}`;
}

/** Which ways an alert of ``kind`` takes, given the choices and whether the page is out of
 * sight (``hidden``) or untouched for a while (``idle``). */
export function plan(kind, prefs, { hidden, idle, permission }) {
  return {
    title: Boolean(prefs.title) && (kind === "turn" || hidden),
    vibrate: Boolean(prefs.vibrate) && (hidden || idle),
    sound: Boolean(prefs.sound) && hidden,
    notification: Boolean(prefs.notifications) && hidden && permission === "granted",
  };
}

export class Attention {
  constructor({ win = globalThis.window, doc = globalThis.document, prefs = null, now = () => Date.now() } = {}) {
    this.win = win;
    this.doc = doc;
    this.now = now;
    this.prefs = prefs ? { ...DEFAULTS, ...prefs } : readPreferences(doc);
    this.baseTitle = doc.title;
    this.myTurn = false;
    this.shownTitle = null;
    this.audio = null;
    this.lastTouch = now();
    const touched = () => {
      this.lastTouch = this.now();
      this.unlockSound();
    };
    for (const type of ["pointerdown", "keydown"]) win.addEventListener(type, touched, { capture: true, passive: true });
    doc.addEventListener("visibilitychange", () => {
      if (!this.hidden()) this.setTitle(this.myTurn && this.prefs.title ? alertTitle("turn") : null);
    });
  }

  hidden() {
    return this.doc.visibilityState === "hidden";
  }

  permission() {
    const N = this.win.Notification;
    return N ? N.permission : "unsupported";
  }

  setTitle(text) {
    const title = text || this.baseTitle;
    if (this.doc.title !== title) this.doc.title = title;
    this.shownTitle = text;
  }

  /** Keeps the title saying "Your turn" while it is (the table calls this on every frame). */
  turn(mine) {
    this.myTurn = Boolean(mine);
    if (this.myTurn && this.prefs.title) this.setTitle(alertTitle("turn"));
    else if (this.shownTitle === alertTitle("turn") || !this.prefs.title) this.setTitle(null);
  }

  /** An alert: ``kind`` is "turn", "match" or "message"; ``title`` and ``body`` are plain
   * text; ``url`` is where the notification takes the player. Returns the ways it took. */
  alert(kind, { title = "", body = "", url = "", tag = "" } = {}) {
    const ways = plan(kind, this.prefs, {
      hidden: this.hidden(),
      idle: this.now() - this.lastTouch >= IDLE_MS,
      permission: this.permission(),
    });
    if (kind === "turn") this.turn(true);
    else if (ways.title) this.setTitle(alertTitle(kind, title));
    const nav = this.win.navigator;
    // A page nobody has tapped yet may not buzz: the browser refuses and logs "Blocked call
    // to navigator.vibrate" (a tournament's match notices on a phone left open).
    if (ways.vibrate && nav && nav.userActivation && !nav.userActivation.hasBeenActive) {
      ways.vibrate = false;
    }
    if (ways.vibrate && nav && typeof nav.vibrate === "function") {
      try {
        nav.vibrate(VIBRATION[kind] || [120]);
      } catch {
        ways.vibrate = false;
      }
    }
    if (ways.sound) ways.sound = this.beep(kind);
    if (ways.notification) ways.notification = this.notify(kind, { title, body, url, tag });
    return ways;
  }

  /** Two short notes through WebAudio; false when the browser has none or refuses. */
  beep(kind) {
    const ctx = this.audioContext();
    if (!ctx) return false;
    try {
      if (ctx.state === "suspended" && ctx.resume) ctx.resume();
      const start = ctx.currentTime + 0.01;
      (NOTES[kind] || NOTES.turn).forEach((freq, i) => {
        const osc = ctx.createOscillator();
        const gain = ctx.createGain();
        const t = start + i * 0.16;
        osc.type = "sine";
        osc.frequency.setValueAtTime(freq, t);
        gain.gain.setValueAtTime(0.0001, t);
        gain.gain.exponentialRampToValueAtTime(0.25, t + 0.02);
        gain.gain.exponentialRampToValueAtTime(0.0001, t + 0.14);
        osc.connect(gain);
        gain.connect(ctx.destination);
        osc.start(t);
        osc.stop(t + 0.15);
      });
      return true;
    } catch {
      return false;
    }
  }

  audioContext() {
    if (this.audio) return this.audio;
    const AC = this.win.AudioContext || this.win.webkitAudioContext;
    if (!AC) return null;
    try {
      this.audio = new AC();
    } catch {
      return null;
    }
    return this.audio;
  }

  /** A click or a key press lets the page make sound later (the browsers' autoplay rule). */
  unlockSound() {
    if (!this.prefs.sound) return;
    const ctx = this.audioContext();
    if (ctx && ctx.state === "suspended" && ctx.resume) ctx.resume().catch(() => {});
  }

  notify(kind, { title, body, url, tag }) {
    const N = this.win.Notification;
    try {
      const n = new N(title || TITLES[kind], { body, tag: tag || kind, icon: "/static/icons/icon-192.png" });
      n.onclick = () => {
        this.win.focus();
        if (url) this.win.location.assign(url);
        n.close();
      };
      return true;
    } catch {
      return false; // (Chrome on Android allows notifications only from a service worker)
    }
  }

  /** Asks the browser for permission to notify: call it from a click handler only. */
  async requestPermission() {
    const N = this.win.Notification;
    if (!N || !N.requestPermission) return "unsupported";
    if (N.permission !== "default") return N.permission;
    return N.requestPermission();
  }
}

let shared = null;

/** The page's one Attention (the table and the notification socket share it). */
export function attention() {
  if (!shared) shared = new Attention();
  return shared;
}
