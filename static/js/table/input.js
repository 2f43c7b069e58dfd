// The player's input: clicks on the piles and the hand, the keyboard (arrows, space, Enter,
// Shift+arrows to move a card, A and H to jump), and drags (drag.js) onto the piles, the
// melds and within the hand. Every move it makes goes through the controller's send(), which
// checks it against the server's legal moves.

import { layoffTargets } from "./actions.js";
import { cardLabel } from "./cards.js";
import { focusFirstButton, isTyping } from "./dom.js";
import { DragController, insertionIndex } from "./drag.js";
import { moveCard } from "./hand.js";

/** A click on a pile: discard the one selected card there, else the pile's own move. */
export function pileClickAction(action, legal, selected) {
  if (selected.length === 1 && legal.includes(`discard:${selected[0]}`)) return `discard:${selected[0]}`;
  return legal.includes(action) ? action : null;
}

/** Why the selected card ``c`` cannot go on the discard pile now (a tap there did nothing
    and said nothing: the card just taken from the pile, most often). */
export function discardRefusal(view, legal, c) {
  if (view && view.taken_card === c) return "You cannot discard the card you just took from the pile: choose another.";
  // (the discard pile's own draw is what the tap plays when it may: only the stock is left)
  if (legal.includes("draw:stock")) return "Draw from the stock first.";
  return "That card cannot be discarded now.";
}

/** Enter on card ``c`` on this seat's turn: its discard, going out, or its one lay-off. */
export function enterAction(legal, c) {
  if (legal.includes(`discard:${c}`)) return `discard:${c}`;
  if (legal.includes(`go_out:${c}`)) return `go_out:${c}`;
  const targets = layoffTargets(legal, c);
  return targets.length === 1 ? `layoff:${c}>${targets[0]}` : null;
}

/**
 * Whether a drag of ``kind`` (hand, stock, discard) may drop on ``target`` (hand, discard,
 * meld). ``card``: the dragged hand card; ``meld``: the target meld; ``canAct``: this seat's
 * turn and no move on the way. Reordering the hand is always allowed.
 */
export function canDropOn(kind, target, { card, meld, legal, canAct }) {
  if (kind === "hand") {
    if (target === "hand") return true;
    if (!canAct) return false;
    if (target === "discard") return legal.includes(`discard:${card}`) || legal.includes(`go_out:${card}`);
    if (target === "meld") return legal.includes(`layoff:${card}>${meld}`);
    return false;
  }
  if (target !== "hand") return false;
  if (kind === "stock") return legal.includes("draw:stock");
  if (kind === "discard") return legal.includes("draw:discard") || legal.includes("take_upcard");
  return false;
}

/** The move a drop makes (null: none; a hand card dropped in the hand only reorders). */
export function dropAction(kind, target, { card, meld, legal }) {
  if (kind === "hand") {
    if (target === "discard") {
      if (legal.includes(`discard:${card}`)) return `discard:${card}`;
      return legal.includes(`go_out:${card}`) ? `go_out:${card}` : null;
    }
    return target === "meld" ? `layoff:${card}>${meld}` : null;
  }
  if (kind === "stock") return "draw:stock";
  if (kind === "discard") return legal.includes("take_upcard") ? "take_upcard" : "draw:discard";
  return null;
}

/** The page-wide shortcut of a key press: "a" (the moves), "h" (the hand) or null. */
export function shortcutOf(e) {
  if (e.altKey || e.ctrlKey || e.metaKey || e.defaultPrevented) return null;
  if (isTyping(e.target)) return null;
  const key = e.key.toLowerCase();
  return key === "a" || key === "h" ? key : null;
}

export class Input {
  constructor(ctrl) {
    this.ctrl = ctrl;
    const hand = ctrl.el.hand;
    hand.addEventListener("keydown", (e) => this.onHandKey(e));
    hand.addEventListener("click", (e) => this.onHandClick(e));
    document.addEventListener("keydown", (e) => this.onShortcut(e));
    this.drag = new DragController(ctrl.root, {
      canDrag: (el) => this.canDrag(el),
      canDrop: (src, drop) => this.canDrop(src, drop),
      over: (src, drop, x, y) => this.dragOver(src, drop, x, y),
      drop: (src, drop) => this.onDrop(src, drop),
    });
  }

  /** Whether the player is dragging one of the hand's cards right now. */
  draggingHand() {
    const d = this.drag.d;
    return Boolean(d && d.active && d.el.dataset.drag === "hand");
  }

  onPileClick(action) {
    const ctrl = this.ctrl;
    if (!ctrl.myTurn || ctrl.busy) return;
    const a = pileClickAction(action, ctrl.legal, ctrl.selected);
    if (a) ctrl.send(a);
    else if (ctrl.selected.length === 1) ctrl.notices.toast(discardRefusal(ctrl.view, ctrl.legal, ctrl.selected[0]), "info", "pile");
  }

  onHandClick(e) {
    const li = e.target.closest(".hand-card");
    if (!li || !this.ctrl.el.hand.contains(li)) return;
    // A tap only ever selects or deselects: discarding, going out and laying off are
    // explicit acts (their buttons, the discard pile, a drag), never a second tap.
    this.ctrl.toggleSelect(li.dataset.card);
  }

  onHandKey(e) {
    const ctrl = this.ctrl;
    const li = e.target.closest(".hand-card");
    if (!li) return;
    const items = [...ctrl.el.hand.querySelectorAll(".hand-card")];
    const i = items.indexOf(li);
    const c = li.dataset.card;
    const focusAt = (k) => {
      const el = items[Math.max(0, Math.min(items.length - 1, k))];
      if (!el) return;
      items.forEach((x) => x.setAttribute("tabindex", "-1"));
      el.setAttribute("tabindex", "0");
      el.focus();
      ctrl.focusCard = el.dataset.card;
    };
    const key = e.key;
    if ((key === "ArrowLeft" || key === "ArrowRight") && e.shiftKey) {
      e.preventDefault();
      const to = i + (key === "ArrowLeft" ? -1 : 1);
      if (to < 0 || to >= items.length) return;
      ctrl.reorder(moveCard(ctrl.order, i, to), c);
      const el = ctrl.el.hand.querySelector(`.hand-card[data-card="${c}"]`);
      if (el) el.focus();
      ctrl.notices.announce(`${cardLabel(c)} moved to position ${to + 1}.`);
      return;
    }
    if (key === "ArrowLeft" || key === "ArrowUp") {
      e.preventDefault();
      focusAt(i - 1);
    } else if (key === "ArrowRight" || key === "ArrowDown") {
      e.preventDefault();
      focusAt(i + 1);
    } else if (key === "Home") {
      e.preventDefault();
      focusAt(0);
    } else if (key === "End") {
      e.preventDefault();
      focusAt(items.length - 1);
    } else if (key === " " || key === "Spacebar") {
      e.preventDefault();
      ctrl.toggleSelect(c);
    } else if (key === "Enter") {
      e.preventDefault();
      const a = ctrl.myTurn ? enterAction(ctrl.legal, c) : null;
      if (a) ctrl.send(a);
      else {
        ctrl.toggleSelect(c);
        // the card just taken, at the discard: say why Enter did not discard it
        if (ctrl.myTurn && ctrl.view && ctrl.view.taken_card === c && ctrl.legal.some((x) => x.startsWith("discard:"))) {
          ctrl.notices.toast(discardRefusal(ctrl.view, ctrl.legal, c), "info", "pile");
        }
      }
    }
  }

  /** A jumps to the move buttons, H to the hand (not while typing, nor with modifiers). */
  onShortcut(e) {
    const ctrl = this.ctrl;
    const key = shortcutOf(e);
    if (!key || document.querySelector("dialog[open]")) return;
    if (key === "a") {
      e.preventDefault();
      // a result panel over the table: its buttons are the moves to make now
      if (!ctrl.el.panel.hidden && focusFirstButton(ctrl.el.panel)) return;
      const b = ctrl.el.actions.querySelector("button:not([disabled])");
      // no move to make (the others' turn): the prompt saying whose it is, not the empty
      // row of buttons, where the focus could not be seen
      (b || ctrl.el.prompt).focus();
    } else if (ctrl.el.hand.children.length) {
      e.preventDefault();
      ctrl.focusHand();
    }
  }

  canDrag(el) {
    if (el.dataset.drag === "hand") return this.ctrl.mySeat !== null;
    return this.ctrl.myTurn && !this.ctrl.busy;
  }

  canDrop(src, drop) {
    const ctrl = this.ctrl;
    return canDropOn(src.dataset.drag, drop.dataset.drop, { card: src.dataset.card, meld: drop.dataset.meld, legal: ctrl.legal, canAct: ctrl.myTurn && !ctrl.busy });
  }

  dragOver(src, drop, x, y) {
    if (src.dataset.drag !== "hand" || drop.dataset.drop !== "hand") return;
    const hand = this.ctrl.el.hand;
    const items = [...hand.querySelectorAll(".hand-card")].filter((el) => el !== src);
    const idx = insertionIndex(items.map((el) => el.getBoundingClientRect()), x, y);
    const ref = items[idx] || null;
    if (src.nextSibling !== ref) hand.insertBefore(src, ref);
  }

  onDrop(src, drop) {
    const ctrl = this.ctrl;
    const kind = src.dataset.drag;
    const target = drop.dataset.drop;
    if (kind === "hand" && target === "hand") {
      ctrl.reorder([...ctrl.el.hand.querySelectorAll(".hand-card")].map((el) => el.dataset.card), src.dataset.card);
      return;
    }
    const a = dropAction(kind, target, { card: src.dataset.card, meld: drop.dataset.meld, legal: ctrl.legal });
    if (a) ctrl.send(a);
  }
}
