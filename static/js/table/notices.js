// What the table tells the player besides the board: the screen reader's live region, the
// move log in the side panel, and the toasts (refusals, rematch, copied link).

import { h, prefersReducedMotion, topBelow } from "./dom.js";

const LIVE_KEEP = 5;
const LOG_KEEP = 40;
const TOASTS_KEEP = 3;

/** Remove the oldest children of ``el`` beyond ``keep``. */
export function trimTo(el, keep) {
  while (el.children.length > keep) el.firstChild.remove();
}

export class Notices {
  /** ``el``: the page's elements (live, logList, toasts). */
  constructor(el) {
    this.el = el;
  }

  /** Read out (politely) and written in the log. */
  announce(text) {
    this.say(text);
    this.logLine(text);
  }

  /** Read out (politely) only. */
  say(text) {
    this.el.live.append(h("p", { text }));
    trimTo(this.el.live, LIVE_KEEP);
  }

  logLine(text) {
    const list = this.el.logList;
    list.append(h("li", { text }));
    trimTo(list, LOG_KEEP);
    list.scrollTop = list.scrollHeight;
  }

  /** A toast for a few seconds; one with a ``key`` replaces the toast of that key still shown
   * (a hint replaces the last hint) and ``dropToast(key)`` takes it away earlier. */
  toast(text, kind = "info", key = null) {
    if (key) this.dropToast(key);
    this.placeToasts();
    const t = h("div", { class: `toast toast-${kind}`, data: key ? { key } : {}, attrs: { role: kind === "error" ? "alert" : "status" } }, h("span", { text }), h("button", { class: "toast-close", text: "×", attrs: { type: "button", "aria-label": "Dismiss" }, on: { click: () => t.remove() } }));
    this.el.toasts.append(t);
    trimTo(this.el.toasts, TOASTS_KEEP);
    setTimeout(() => t.remove(), prefersReducedMotion() ? 7000 : 5000);
  }

  /** Toasts stand just under the table's own bar (over the opponents' names, where nothing
   * is pressed), not over the site's menu or the bar's buttons; at the window's top when the
   * bar is scrolled away. */
  placeToasts() {
    const bar = this.el.bar;
    if (!bar || !bar.getBoundingClientRect) return;
    this.el.toasts.style.setProperty("--toasts-top", `${topBelow(bar)}px`);
  }

  dropToast(key) {
    for (const t of this.el.toasts.querySelectorAll(".toast")) if (t.dataset.key === key) t.remove();
  }
}
