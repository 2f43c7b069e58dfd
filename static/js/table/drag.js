// Drag and drop with pointer events (mouse, pen and touch alike). Elements with
// [data-drag] can be dragged; elements with [data-drop] receive. A press that does not move
// past a few pixels stays an ordinary click.

const THRESHOLD = 6;

export class DragController {
  /**
   * root: container with the draggables. opts:
   *  canDrag(el) -> bool; canDrop(src, dropEl) -> bool; over(src, dropEl, x, y) (live feedback);
   *  drop(src, dropEl, x, y); end(src)
   */
  constructor(root, opts) {
    this.root = root;
    this.o = opts;
    this.d = null;
    this.suppressClick = false;
    root.addEventListener("pointerdown", (e) => this.down(e));
    root.addEventListener(
      "click",
      (e) => {
        if (this.suppressClick) {
          e.preventDefault();
          e.stopPropagation();
          this.suppressClick = false;
        }
      },
      true,
    );
  }

  down(e) {
    if (e.button !== 0 && e.pointerType === "mouse") return;
    const el = e.target.closest("[data-drag]");
    if (!el || !this.root.contains(el) || !this.o.canDrag(el)) return;
    this.d = { el, id: e.pointerId, x0: e.clientX, y0: e.clientY, active: false, ghost: null, target: null };
    // listen on the window, not the element: reordering moves the element in the DOM, which
    // would drop a pointer capture
    const move = (ev) => this.move(ev);
    const up = (ev) => {
      if (ev.pointerId !== e.pointerId) return;
      window.removeEventListener("pointermove", move);
      window.removeEventListener("pointerup", up);
      window.removeEventListener("pointercancel", up);
      this.up(ev);
    };
    window.addEventListener("pointermove", move, { passive: false });
    window.addEventListener("pointerup", up);
    window.addEventListener("pointercancel", up);
  }

  move(e) {
    const d = this.d;
    if (!d || e.pointerId !== d.id) return;
    if (!d.active) {
      if (Math.hypot(e.clientX - d.x0, e.clientY - d.y0) < THRESHOLD) return;
      d.active = true;
      const r = d.el.getBoundingClientRect();
      d.dx = d.x0 - r.left;
      d.dy = d.y0 - r.top;
      const g = d.el.cloneNode(true);
      g.removeAttribute("id");
      g.classList.add("drag-ghost");
      g.setAttribute("aria-hidden", "true");
      g.style.width = `${r.width}px`;
      g.style.height = `${r.height}px`;
      document.body.appendChild(g);
      d.ghost = g;
      d.el.classList.add("drag-source");
      document.body.classList.add("is-dragging");
    }
    e.preventDefault();
    d.ghost.style.transform = `translate(${e.clientX - d.dx}px, ${e.clientY - d.dy}px) rotate(-3deg)`;
    const under = document.elementFromPoint(e.clientX, e.clientY);
    const drop = under ? under.closest("[data-drop]") : null;
    const ok = drop && this.o.canDrop(d.el, drop) ? drop : null;
    if (ok !== d.target) {
      if (d.target) d.target.classList.remove("drop-ok");
      if (ok) ok.classList.add("drop-ok");
      d.target = ok;
    }
    if (ok && this.o.over) this.o.over(d.el, ok, e.clientX, e.clientY);
  }

  up(e) {
    const d = this.d;
    this.d = null;
    if (!d) return;
    if (!d.active) return; // a click: let it through
    this.suppressClick = true;
    setTimeout(() => {
      this.suppressClick = false;
    }, 0);
    if (d.ghost) d.ghost.remove();
    d.el.classList.remove("drag-source");
    document.body.classList.remove("is-dragging");
    if (d.target) d.target.classList.remove("drop-ok");
    if (e.type === "pointerup" && d.target) this.o.drop(d.el, d.target, e.clientX, e.clientY);
    if (this.o.end) this.o.end(d.el);
  }
}

/** Index at which a card dropped at (x, y) goes among ``items`` (rects in reading order). */
export function insertionIndex(rects, x, y) {
  let best = rects.length;
  let bestDist = Infinity;
  rects.forEach((r, i) => {
    const cy = r.top + r.height / 2;
    const rowDist = Math.abs(y - cy) > r.height / 2 ? Math.abs(y - cy) : 0;
    const cx = r.left + r.width / 2;
    const dist = rowDist * 4 + Math.abs(x - cx);
    if (dist < bestDist) {
      bestDist = dist;
      best = x < cx ? i : i + 1;
    }
  });
  return best;
}
