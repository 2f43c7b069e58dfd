// What the table tells the player besides the board: the screen reader's live region, the
// move log in the side panel, and the toasts (refusals, rematch, copied link).

import { h, prefersReducedMotion } from "./dom.js";

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
    this.el.live.append(h("p", { text }));
    trimTo(this.el.live, LIVE_KEEP);
    this.logLine(text);
  }

  logLine(text) {
    const list = this.el.logList;
    list.append(h("li", { text }));
    trimTo(list, LOG_KEEP);
    list.scrollTop = list.scrollHeight;
  }

  toast(text, kind = "info") {
    const t = h("div", { class: `toast toast-${kind}`, attrs: { role: kind === "error" ? "alert" : "status" } }, h("span", { text }), h("button", { class: "toast-close", text: "×", attrs: { type: "button", "aria-label": "Dismiss" }, on: { click: () => t.remove() } }));
    this.el.toasts.append(t);
    trimTo(this.el.toasts, TOASTS_KEEP);
    setTimeout(() => t.remove(), prefersReducedMotion() ? 7000 : 5000);
  }
}
