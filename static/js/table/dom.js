// Tiny DOM helpers. Text always goes in through textContent, never as HTML.

/**
 * h("button", {class: "x", text: "Go", attrs: {type: "button"}, data: {card: "7H"}, on: {click}}, ...children)
 */
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  if (props.class) el.className = props.class;
  if (props.text !== undefined && props.text !== null) el.textContent = String(props.text);
  if (props.attrs) {
    for (const [k, v] of Object.entries(props.attrs)) {
      if (v === false || v === null || v === undefined) continue;
      el.setAttribute(k, v === true ? "" : String(v));
    }
  }
  if (props.data) for (const [k, v] of Object.entries(props.data)) el.dataset[k] = String(v);
  if (props.on) for (const [k, fn] of Object.entries(props.on)) el.addEventListener(k, fn);
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.appendChild(typeof c === "string" ? document.createTextNode(c) : c);
  }
  return el;
}

export function clear(el) {
  while (el.firstChild) el.removeChild(el.firstChild);
  return el;
}

export function setChildren(el, ...children) {
  clear(el);
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.appendChild(typeof c === "string" ? document.createTextNode(c) : c);
  }
  return el;
}

/**
 * Makes ``items`` the child nodes of ``el``, in that order, moving only the nodes that are
 * out of place (a node that stays keeps its focus, its transitions and the press on it) and
 * removing the others.
 */
export function placeInOrder(el, items) {
  items.forEach((item, i) => {
    const at = el.childNodes[i];
    if (at !== item) el.insertBefore(item, at || null);
  });
  while (el.childNodes.length > items.length) el.removeChild(el.lastChild);
  return el;
}

/**
 * ``setChildren`` for views drawn again on every frame: a new child equal to the old one at
 * its place (``isEqualNode``: the same tags, attributes and text) leaves the old one there,
 * so that a press, the focus or a chosen option on it survives a frame in flight. A kept
 * element keeps its old listeners: whatever a listener does must show in what is compared
 * (a button's text or a data attribute), never only in its closure.
 */
export function updateChildren(el, ...children) {
  const nodes = children.flat().filter((c) => c !== null && c !== undefined && c !== false)
    .map((c) => (typeof c === "string" ? document.createTextNode(c) : c));
  const old = el.childNodes;
  return placeInOrder(el, nodes.map((n, i) => (old[i] && old[i].isEqualNode(n) ? old[i] : n)));
}

export function prefersReducedMotion() {
  return window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
}

export function store(key, value) {
  try {
    if (value === undefined) return window.localStorage.getItem(key);
    window.localStorage.setItem(key, value);
  } catch (err) {
    /* private mode: settings last for this page only */
  }
  return value;
}

/** Scroll ``el`` into view when it is not (most of it) on the screen already. */
export function reveal(el, block = "start") {
  if (typeof el.scrollIntoView !== "function") return;
  const r = el.getBoundingClientRect();
  const vh = window.innerHeight || document.documentElement.clientHeight;
  if (r.top >= 0 && r.top < vh * 0.6) return;
  el.scrollIntoView({ block, behavior: prefersReducedMotion() ? "auto" : "smooth" });
}

/** Whether ``el`` takes typing (a field, or editable text): keys there are not shortcuts. */
export function isTyping(el) {
  return Boolean(el && (el.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName)));
}

/** Where toasts stand at a table (px from the window's top): just under its ``bar``, over the
 * opponents' names where nothing is pressed, or near the top when the bar is scrolled away. */
export function topBelow(bar) {
  const bottom = bar.getBoundingClientRect().bottom;
  return Math.round(bottom > 0 && bottom < window.innerHeight / 2 ? bottom + 6 : 12);
}

/** Focus the first button of ``box``, unless the player is typing (the chat) or in a dialog;
 * true when it did. */
export function focusFirstButton(box) {
  if (isTyping(document.activeElement)) return false;
  if (document.querySelector("dialog[open]")) return false;
  const b = box.querySelector("button:not([disabled]), a.button");
  if (!b) return false;
  b.focus({ preventScroll: true });
  return true;
}

export function openDialog(dlg) {
  if (typeof dlg.showModal === "function") {
    if (!dlg.open) dlg.showModal();
  } else dlg.setAttribute("open", "");
}
