"""The two-phones test's player: the move it chooses from what the page offers (a card that
makes no meld, the cheapest to keep out; Knock or Gin when the page offers it) and makes by
tapping, as a person would."""
from __future__ import annotations

import pytest

from tests.support.phones import RANKS, RECT, WAIT, card_value, finger_drag, tap_on, wait_version


def near(a: str, b: str) -> float:
    """How much two cards help each other towards a meld (a pair, or neighbours in a suit)."""
    if a[0] == b[0]:
        return 1.0
    gap = abs(RANKS.index(a[0]) - RANKS.index(b[0]))
    return {1: 1.0, 2: 0.5}.get(gap, 0.0) if a[1] == b[1] else 0.0


def makes_meld(card: str, hand: list[dict]) -> bool:
    """Would ``card`` make a new meld with two of the cards the page shows as not melded?"""
    free = [c["card"] for c in hand if not c["inMeld"]]
    if sum(c[0] == card[0] for c in free) >= 2:
        return True
    i = RANKS.index(card[0])
    ranks = {RANKS.index(c[0]) for c in free if c[1] == card[1]}
    return any(pair <= ranks for pair in ({i - 2, i - 1}, {i - 1, i + 1}, {i + 1, i + 2}))


def discard_choice(hand: list[dict]) -> str:
    """A high card the page does not show in a meld and that helps no other free card (never
    the card just taken)."""
    free = [c["card"] for c in hand if not c["inMeld"] and not c["taken"]]
    free = free or [c["card"] for c in hand if not c["taken"]]
    others = [c["card"] for c in hand if not c["inMeld"]]

    def worth(c: str) -> tuple[float, int]:
        help_ = sum(near(c, o) for o in others if o != c)
        return card_value(c)[0] - 6 * help_, card_value(c)[1]

    return max(free, key=worth)


# Where ``sel`` is right after the next tap's own handlers ran (a listener on the window runs
# after the page's): the first layout the player sees, before any timer fires.
AFTER_TAP = """(sel) => {
  window.__afterTap = null;
  window.addEventListener('click', () => {
    const r = document.querySelector(sel).getBoundingClientRect();
    window.__afterTap = {x: r.left + r.width / 2, y: r.top + r.height / 2, top: r.top,
                         bottom: r.bottom};
  }, {once: true});
}"""


def select_card(page, sel: str, on: bool = True) -> None:
    """Tap a hand card until it shows as selected (``on``) or not. A tap toggles, so the
    card is tapped only when it is not already as wanted: a retry after a move that failed
    later must not undo the selection the first try made."""
    want = "true" if on else "false"
    if page.get_attribute(sel, "aria-selected") != want:
        tap_on(page, sel)
    page.wait_for_selector(f"{sel}[aria-selected={want}]", timeout=WAIT)


def play_one(page, seen: dict, log: dict) -> str:
    """One decision by the player whose turn it is, read from the page and made by taps."""
    phase, acts = seen["phase"], seen["acts"]
    if phase == "offer":
        assert "pass" in acts
        tap_on(page, "[data-act=pass]")
        did = "pass"
    elif phase == "draw":
        assert seen["stockLive"]
        top = seen["top"]
        if top and "draw:discard" in acts and makes_meld(top, seen["hand"]):
            tap_on(page, ".pile-discard")  # the top card makes a meld: take it
            did = f"take {top}"
        elif not log["dragged_stock"]:
            log["dragged_stock"] = True
            finger_drag(page, ".pile-stock", ".hand")  # drag the stock onto the hand
            did = "draw (finger drag)"
        else:
            tap_on(page, ".pile-stock")
            did = "draw"
    elif phase == "discard":
        act = next((a for a in ("big_gin", "gin", "knock") if a in acts), None)
        if act:
            label = page.text_content(f".tbl-actions [data-act={act}]")
            tap_on(page, f".tbl-actions [data-act={act}]")
            did = f"{act}: {label}"
        elif not log["dragged_card"]:
            log["dragged_card"] = True
            card = discard_choice(seen["hand"])
            finger_drag(page, f".hand-card[data-card='{card}']", ".pile-discard")
            did = f"discard {card} (finger drag)"
        else:
            card = discard_choice(seen["hand"])
            sel = f".hand-card[data-card='{card}']"
            button = f".tbl-actions [data-act='discard:{card}']"
            held = not log.get("held_still")
            if held:
                # Selecting re-renders the seat's line: what the tap shows at once must not
                # move later (a timer born hidden came back a clock tick later, and moved the
                # button and the hand under the finger about to tap them)
                log["held_still"] = True
                page.evaluate(AFTER_TAP, button)
            select_card(page, sel)
            page.wait_for_selector(button, timeout=WAIT)
            if held:
                page.wait_for_timeout(600)
                at_once = page.evaluate("() => window.__afterTap")
                assert at_once and page.locator(button).evaluate(RECT) == at_once, (
                    "the prompt moved after the tap", at_once)
            tap_on(page, button)
            did = f"discard {card}"
    elif phase == "layoff":
        suggested = [c["card"] for c in seen["hand"] if c["suggested"]]
        card = None
        if suggested and not log["laid_by_hand"]:
            # lay one off by hand: tap a suggested card, then the meld the page lights up (a
            # card that fits only after another lay-off lights none up: tap it again, try next)
            for c in suggested:
                sel = f".hand-card[data-card='{c}']"
                select_card(page, sel)
                if page.locator(".meld.is-target").count():
                    card = c
                    break
                select_card(page, sel, False)
            assert card, ("no suggested lay-off can be made", suggested)
        if card:
            tap_on(page, ".meld.is-target")
            log["laid_by_hand"] += 1
            did = f"layoff {card}"
        elif suggested:
            tap_on(page, "[data-act=accept_layoffs]")
            did = "accept"
        else:
            tap_on(page, "[data-act=done]")
            did = "done"
    else:
        pytest.fail(f"my turn in phase {phase}?")
    wait_version(page, seen["version"] + 1)
    return did


# ----------------------------------------------------------------------------- the test
