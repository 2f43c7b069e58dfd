// The prompt over the hand: what to do now and the move buttons (the server's legal moves),
// or whom the table waits for; and the resign confirmation. View functions take the table
// controller (app.js).

import { actionButtons, selectionNote } from "./actions.js";
import { seatName, turnPrompt } from "./announce.js";
import { clear, h, openDialog, setChildren, updateChildren } from "./dom.js";

const PHASE_WAIT = {
  offer: "to take or pass the upcard",
  draw: "to draw",
  discard: "to discard",
  layoff: "to lay off",
  play: "to play",
};

// The longest name the prompt's line says whole: a 150-letter name made "Waiting for … to
// take or pass the upcard" five bold lines over the piles on a phone (an audit); the seat
// shows the name.
const PROMPT_NAME_MAX = 24;

/** ``name`` as the prompt says it: cut with an ellipsis past PROMPT_NAME_MAX characters. */
export function promptName(name) {
  const chars = [...name];
  return chars.length > PROMPT_NAME_MAX ? `${chars.slice(0, PROMPT_NAME_MAX - 1).join("")}…` : name;
}

/** The prompt while another seat is to act (a spectator is told who plays, not to wait). */
export function waitingText(view, mySeat, ctx) {
  const who = view.to_act !== null ? promptName(seatName(view.to_act, ctx)) : "";
  if (view.phase === "layoff" && mySeat !== null && view.showdown && view.showdown.knocker === mySeat) {
    return `You knocked. ${who} is laying off onto your melds…`;
  }
  if (!who) return "";
  const doing = PHASE_WAIT[view.phase] || "to play";
  return mySeat === null ? `${who} ${doing}.` : `Waiting for ${who} ${doing}…`;
}

export function renderPrompt(ctrl) {
  const v = ctrl.view;
  const f = ctrl.frame;
  const text = ctrl.el.promptText;
  const acts = ctrl.el.actions;
  ctrl.el.prompt.classList.remove("has-choice");
  if (!v) {
    text.textContent = "";
    ctrl.el.prompt.hidden = true;
    clear(acts);
    return;
  }
  ctrl.el.prompt.hidden = false;
  // the buttons go through updateChildren: a button drawn again for a frame in flight, the
  // same as before (its move is its data-act), stays the button being pressed
  const buttons = [];
  if (v.is_over || f.table.status !== "playing") {
    text.textContent = f.table.status === "playing" ? "" : "The game is over.";
    if (ctrl.gameOverClosed) buttons.push(h("button", { class: "button button-small", text: "Show the result", attrs: { type: "button" }, on: { click: () => ctrl.showGameOver(true) } }));
  } else if (ctrl.myTurn) {
    const note = selectionNote(v, ctrl.legal, ctrl.selected);
    text.textContent = ctrl.busy ? "Sending…" : note || turnPrompt(v, ctrl.legal);
    const hinted = ctrl.hint && ctrl.hint.version === ctrl.socket.version ? ctrl.hint.action : null;
    for (const b of actionButtons(v, ctrl.legal, ctrl.selected, ctrl.handCards(), hinted)) {
      buttons.push(h("button", { class: `button${b.primary ? "" : " button-secondary"}`, text: b.label, data: { act: b.id }, attrs: { type: "button", disabled: ctrl.busy }, on: { click: () => ctrl.send(b.action) } }));
    }
    // the buttons say what can be done: on a short screen they take the instructions' place
    // instead of squeezing the piles out of the felt
    ctrl.el.prompt.classList.toggle("has-choice", buttons.some((b) => b.dataset.act));
  } else {
    text.textContent = waitingText(v, ctrl.mySeat, ctrl.ctx());
  }
  updateChildren(acts, buttons);
}

/** What resigning does, as the confirmation says it: at a table of three or four where
 * another person plays on (and a second seat still plays for a place) the game goes on
 * without you, as the server says (``you.resign_goes_on``; docs/protocol.md, "Timers,
 * disconnections, the end"). */
export function resignText(frame) {
  if (frame && frame.you && frame.you.resign_goes_on) {
    return "Resigning counts as a loss: you take the last place still free, and a computer plays your seat until the others finish the game.";
  }
  return "Resigning ends the game at once and counts as a loss.";
}

/** What claiming does, as its confirmation says it (``claimText`` of seats.js gives the
 * banner's words): one tap ended the game, while Resign asked first. */
export function claimConfirmText(frame) {
  if (frame && frame.you && frame.you.claim_goes_on) {
    return { title: "Let the computer play on?", body: "The player who left takes the last place still free, and a computer plays their seat until the game ends.", button: "Let the computer play on" };
  }
  return { title: "Claim the win?", body: "The game ends now and counts as your win; your opponent loses it by leaving the table.", button: "Claim the win" };
}

export function confirmClaim(ctrl) {
  const d = ctrl.el.confirmDialog;
  const text = claimConfirmText(ctrl.frame);
  setChildren(
    d,
    h("h2", { text: text.title, attrs: { id: "tbl-confirm-title" } }),
    h("p", { text: text.body }),
    h(
      "div",
      { class: "tbl-actions" },
      h("button", { class: "button", text: text.button, attrs: { type: "button" }, on: { click: () => { ctrl.claim(); d.close(); } } }),
      h("button", { class: "button button-secondary", text: "Keep waiting", attrs: { type: "button", autofocus: true }, on: { click: () => d.close() } }),
    ),
  );
  openDialog(d);
}

export function confirmResign(ctrl) {
  const d = ctrl.el.confirmDialog;
  setChildren(
    d,
    h("h2", { text: "Resign this game?", attrs: { id: "tbl-confirm-title" } }),
    h("p", { text: resignText(ctrl.frame) }),
    h(
      "div",
      { class: "tbl-actions" },
      h("button", { class: "button button-danger", text: "Resign", attrs: { type: "button" }, on: { click: () => { ctrl.resign(); d.close(); } } }),
      h("button", { class: "button button-secondary", text: "Keep playing", attrs: { type: "button", autofocus: true }, on: { click: () => d.close() } }),
    ),
  );
  openDialog(d);
}
