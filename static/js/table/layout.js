// The table page's skeleton: the bar, the felt's regions, the hand, the side panel (moves
// and chat) and the dialogs. Built once; the view modules fill the regions in.

import { CHAT_MAX } from "./chat.js";
import { clear, h } from "./dom.js";
import { layoutHand } from "./handview.js";
import { confirmResign } from "./prompt.js";
import { fitNames } from "./seats.js";
import { openSheet } from "./sheet.js";

const SORT_LABELS = { melds: "Melds", rank: "Rank", suit: "Suit" };

/** Builds the skeleton in ``ctrl.root`` and returns its elements by name. */
export function buildLayout(ctrl) {
  const r = ctrl.root;
  clear(r);
  r.classList.add("tbl");
  r.classList.toggle("four-colour", ctrl.fourColour);
  const E = {};
  E.live = h("div", { class: "visually-hidden", attrs: { "aria-live": "polite", "aria-atomic": "false", id: "tbl-live" } });
  E.toasts = h("div", { class: "tbl-toasts", attrs: { "aria-live": "assertive" } });
  E.title = h("div", { class: "tbl-title" });
  E.conn = h("div", { class: "tbl-conn", attrs: { role: "status" } });
  E.sheetBtn = h("button", { class: "tbl-tool", text: "Score sheet", attrs: { type: "button" }, on: { click: () => openSheet(ctrl) } });
  E.resignBtn = h("button", { class: "tbl-tool tbl-tool-danger", text: "Resign", attrs: { type: "button", hidden: true }, on: { click: () => confirmResign(ctrl) } });
  E.colourToggle = h("input", { attrs: { type: "checkbox", id: "tbl-four-colour" }, on: { change: (e) => ctrl.setFourColour(e.target.checked) } });
  E.colourToggle.checked = ctrl.fourColour;
  const colourLabel = h("label", { class: "tbl-tool tbl-check", attrs: { for: "tbl-four-colour" } }, E.colourToggle, " Four colours");
  // the same switch where narrow screens show it: in the moves and chat drawer
  E.colourToggle2 = h("input", { attrs: { type: "checkbox", id: "tbl-four-colour-2" }, on: { change: (e) => ctrl.setFourColour(e.target.checked) } });
  E.colourToggle2.checked = ctrl.fourColour;
  E.sideColour = h("label", { class: "tbl-tool tbl-check tbl-side-colour", attrs: { for: "tbl-four-colour-2" } }, E.colourToggle2, " Four-colour cards");
  // narrow screens: moves and chat open over the table (the stylesheet shows this button);
  // a game offline (its own transport, offline/local.js) has nobody to chat with
  const chats = !ctrl.data.transport;
  E.sideBtn = h("button", { class: "tbl-tool tbl-side-toggle", text: chats ? "Moves & chat" : "Moves", attrs: { type: "button", "aria-expanded": "false", "aria-controls": "tbl-side" }, on: { click: () => ctrl.toggleSide() } });
  E.bar = h("header", { class: "tbl-bar" }, E.title, E.conn, h("div", { class: "tbl-tools" }, colourLabel, E.sheetBtn, E.sideBtn, E.resignBtn));
  E.banner = h("div", { class: "tbl-banner", attrs: { hidden: true, role: "status" } });
  E.opps = h("section", { class: "tbl-opps", attrs: { "aria-label": "Opponents" } });
  // (a tab stop: on a phone the felt scrolls when the melds outgrow it, and a scrolling box
  // with nothing focusable in it, as in the upcard's offer, was out of a keyboard's reach)
  E.felt = h("section", { class: "tbl-felt", attrs: { "aria-label": "Table", tabindex: "0" } });
  // (not a live region: what it shows is read out from the live region once, app.js; as a
  // live region too a hand's result was read twice)
  E.panel = h("section", { class: "tbl-panel", attrs: { hidden: true } });
  E.promptText = h("p", { class: "tbl-prompt-text" });
  E.actions = h("div", { class: "tbl-actions", attrs: { id: "tbl-actions", tabindex: "-1", "aria-keyshortcuts": "A" } });
  // (where the focus waits while a move is in flight: focus.js)
  E.prompt = h("div", { class: "tbl-prompt", attrs: { tabindex: "-1" } }, E.promptText, E.actions);
  E.meInfo = h("div", { class: "tbl-me-info" });
  E.sort = h("div", { class: "tbl-sort", attrs: { role: "group", "aria-label": "Sort your hand" } });
  for (const [mode, label] of Object.entries(SORT_LABELS)) {
    E.sort.appendChild(
      h("button", { class: "tbl-sort-btn", text: label, data: { sort: mode }, attrs: { type: "button", "aria-pressed": "false" }, on: { click: () => ctrl.setSort(mode) } }),
    );
  }
  E.hand = h("ul", {
    class: "hand",
    attrs: { role: "listbox", "aria-label": "Your hand", "aria-orientation": "horizontal" },
    data: { drop: "hand" },
  });
  // casual games against the computer: the Hard computer's move, on request (handview.js
  // shows it). A tool of the hand, beside the sort buttons: in the prompt it would take a row
  // of its own on a phone and squeeze the piles out of the felt.
  E.hintBtn = h("button", { class: "tbl-hint button-hint", text: "Hint", attrs: { type: "button", hidden: true, "aria-label": "Hint: what would the computer play?" }, on: { click: () => ctrl.askHint() } });
  E.me = h("section", { class: "tbl-me", attrs: { "aria-label": "You" } }, h("div", { class: "tbl-me-row" }, E.meInfo, h("div", { class: "tbl-hand-tools" }, E.sort, E.hintBtn)), E.hand);
  // the prompt and its buttons come first for the keyboard and screen readers (the
  // stylesheet still draws them between the felt and the hand)
  E.main = h("div", { class: "tbl-main" }, E.banner, E.prompt, E.opps, E.felt, E.panel, E.me);
  // (it scrolls: a keyboard reaches it to scroll it)
  E.logList = h("ol", { class: "tbl-log", attrs: { tabindex: "0", "aria-label": "Moves" } });
  E.chatList = h("ul", { class: "tbl-chat-list", attrs: { "aria-label": "Chat messages" } });
  // (maxlength counts UTF-16 units, an emoji two: twice the limit lets 300 of them in; the
  // count and the check before sending hold the limit in characters, as the server does)
  E.chatInput = h("input", { class: "tbl-chat-input", attrs: { type: "text", maxlength: 2 * CHAT_MAX, id: "tbl-chat-input", autocomplete: "off", "aria-describedby": "tbl-chat-count" } });
  E.chatCount = h("span", { class: "tbl-chat-count", text: `0/${CHAT_MAX}`, attrs: { id: "tbl-chat-count", "aria-live": "off" } });
  // (not cut while a word is being composed, by an input method or a phone's keyboard: once
  // it is, at compositionend)
  E.chatInput.addEventListener("input", (e) => ctrl.chat.renderCount(e.isComposing));
  E.chatInput.addEventListener("compositionend", () => ctrl.chat.renderCount());
  E.chatForm = h(
    "form",
    { class: "tbl-chat-form", on: { submit: (e) => ctrl.chat.submit(e) } },
    h("label", { class: "visually-hidden", text: "Message", attrs: { for: "tbl-chat-input" } }),
    E.chatInput,
    h("button", { class: "button button-small", text: "Send", attrs: { type: "submit" } }),
    E.chatCount,
  );
  E.chatNote = h("p", { class: "tbl-chat-note muted", attrs: { hidden: true } });
  E.side = h(
    "aside",
    { class: "tbl-side", attrs: { id: "tbl-side", "aria-label": chats ? "Moves and chat" : "Moves" } },
    E.sideColour,
    h("details", { class: "tbl-box", attrs: { open: true } }, h("summary", { text: "Moves" }), E.logList),
    h("details", { class: "tbl-box tbl-chat", attrs: { open: true, hidden: !chats } }, h("summary", { text: "Chat" }), E.chatList, E.chatForm, E.chatNote),
  );
  E.sheetDialog = h("dialog", { class: "tbl-dialog", attrs: { "aria-labelledby": "tbl-sheet-title" } });
  E.confirmDialog = h("dialog", { class: "tbl-dialog tbl-dialog-small", attrs: { "aria-labelledby": "tbl-confirm-title" } });
  r.append(E.bar, h("div", { class: "tbl-layout" }, E.main, E.side), E.toasts, E.live, E.sheetDialog, E.confirmDialog);
  if (typeof ResizeObserver !== "undefined") {
    new ResizeObserver(() => layoutHand(E.hand)).observe(E.me);
    new ResizeObserver(() => fitNames(E.opps)).observe(E.opps);
  }
  window.addEventListener("resize", () => {
    layoutHand(E.hand);
    checkFit(r, E.main, true);
  });
  return E;
}

/** During play the table fits the screen (table.css), the felt taking what is left. Where
 * even so the hand does not fit (a large text size on a short screen: the hand was cut off,
 * out of reach of any scroll), the table lets the page scroll instead (``is-unfit``). Checked
 * after each render and again from scratch (``fresh``) at each resize. */
export function checkFit(root, main, fresh = false) {
  if (root.dataset.status !== "playing") {
    root.classList.remove("is-unfit");
    return;
  }
  if (fresh) root.classList.remove("is-unfit");
  else if (root.classList.contains("is-unfit")) return;
  if (main.scrollHeight - main.clientHeight > 2) root.classList.add("is-unfit");
}
