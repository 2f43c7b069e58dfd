// Keeping the keyboard's place at the table from one render to the next.
//
// A move's button, a pile or a meld is drawn anew when the table changes (a button turns
// disabled while its move is in flight, a pile's label names its new top card), and the
// element that had the focus leaves the page: the focus fell back to <body> after nearly
// every move, and a keyboard player had to find the table again from the top of the page.
// Now a render puts the focus, where it was lost, on the same control drawn anew, else on
// the first move button, else on the prompt above the buttons ("parked"), from where it goes
// to the first move button as soon as there is one (the player's next turn).

const KEYS = ["act", "action", "meld"];

function usable(el) {
  return Boolean(el && el.isConnected && !el.disabled && !el.closest("[hidden]"));
}

function firstButton(actions) {
  return [...actions.querySelectorAll("button")].find(usable) || null;
}

function attrValue(v) {
  return typeof CSS !== "undefined" && CSS.escape ? CSS.escape(v) : String(v).replace(/["\\]/g, "\\$&");
}

/** What had the focus inside ``root`` before a render, or null (the focus is elsewhere: a
 * render never takes it from there). */
export function focusMark(root, park) {
  const el = typeof document !== "undefined" ? document.activeElement : null;
  if (!el || el === document.body || !root.contains(el)) return null;
  const key = {};
  for (const k of KEYS) if (el.dataset && el.dataset[k] !== undefined) key[k] = el.dataset[k];
  return { el, key, parked: el === park, card: Boolean(el.classList && el.classList.contains("hand-card")) };
}

/** After a render: the focus ``mark`` had is put back where it belongs (see above). ``hand``
 * gives the focus to the hand (a card's own render keeps it on the hand when it can). */
export function keepFocus(root, mark, { actions, park, hand }) {
  if (!mark) return;
  const now = document.activeElement;
  const focus = (el) => el.focus({ preventScroll: true });
  if (mark.parked) {
    if (now === park) {
      const b = firstButton(actions);
      if (b) focus(b);
    }
    return;
  }
  if (now && now !== document.body && root.contains(now) && usable(now)) return;
  for (const [k, v] of Object.entries(mark.key)) {
    const same = root.querySelector(`[data-${k}="${attrValue(v)}"]`);
    if (usable(same)) return focus(same);
  }
  if (mark.card && hand && hand()) return;
  const b = firstButton(actions);
  if (b) return focus(b);
  if (park && !park.closest("[hidden]")) focus(park);
}
