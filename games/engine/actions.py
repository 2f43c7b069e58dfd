"""Actions: small values with text forms that round-trip.

>>> a = Action.parse("discard:QS")
>>> a.kind, str(a.card), str(a)
('discard', 'QS', 'discard:QS')
>>> str(Action.parse("meld:7H,5H,6H"))
'meld:5H,6H,7H'
>>> str(Action.parse("layoff:8H>2"))
'layoff:8H>2'
"""

from __future__ import annotations

from dataclasses import dataclass

from .cards import Card
from .errors import InvalidActionError, InvalidCardError, InvalidMeldError
from .meld import Meld, meld_key

__all__ = ["Action", "ActionKind"]


class ActionKind:
    TAKE_UPCARD = "take_upcard"
    PASS = "pass"
    DRAW_STOCK = "draw:stock"
    DRAW_DISCARD = "draw:discard"
    DISCARD = "discard"
    KNOCK = "knock"
    GIN = "gin"
    BIG_GIN = "big_gin"
    LAYOFF = "layoff"
    ACCEPT_LAYOFFS = "accept_layoffs"
    DONE = "done"
    MELD = "meld"
    GO_OUT = "go_out"


_BARE = {
    ActionKind.TAKE_UPCARD,
    ActionKind.PASS,
    ActionKind.DRAW_STOCK,
    ActionKind.DRAW_DISCARD,
    ActionKind.BIG_GIN,
    ActionKind.ACCEPT_LAYOFFS,
    ActionKind.DONE,
}
_ONE_CARD = {ActionKind.DISCARD, ActionKind.KNOCK, ActionKind.GIN, ActionKind.GO_OUT}


@dataclass(frozen=True, slots=True)
class Action:
    """One move. ``kind`` is one of ``ActionKind``; ``card``/``cards``/``target`` as needed."""

    kind: str
    card: Card | None = None
    cards: tuple[Card, ...] = ()
    target: int | None = None
    melds: tuple[Meld, ...] = ()

    @staticmethod
    def parse(text: str | Action) -> Action:
        if isinstance(text, Action):
            return text
        if not isinstance(text, str):
            raise InvalidActionError(f"action must be text, got {type(text).__name__}")
        cached = _CACHE.get(text)
        if cached is not None:
            return cached
        t = text.strip()
        low = t.lower()
        try:
            if low in _BARE:
                return Action(low)
            head, sep, rest = t.partition(":")
            head = head.strip().lower()
            if not sep:
                raise InvalidActionError(f"unknown action {text!r}")
            rest = rest.strip()
            if head in (ActionKind.KNOCK, ActionKind.GIN) and "|" in rest:
                card_txt, *parts = rest.split("|")
                melds = sorted((Meld.parse(p) for p in parts if p.strip()), key=meld_key)
                return Action(head, Card.parse(card_txt.strip()), melds=tuple(melds))
            if head in _ONE_CARD:
                return Action(head, Card.parse(rest))
            if head == ActionKind.LAYOFF:
                card_txt, gt, idx = rest.partition(">")
                idx = idx.strip()
                # ASCII digits only: str.isdigit() also takes '²' (which int() refuses) and
                # '١' (read as 1: two spellings of one move)
                if not gt or not (idx.isascii() and idx.isdigit() and len(idx) <= 3):
                    raise InvalidActionError(f"lay-off needs 'layoff:CARD>MELD', got {text!r}")
                return Action(head, Card.parse(card_txt.strip()), target=int(idx))
            if head == ActionKind.MELD:
                parts = [p for p in rest.replace(" ", ",").split(",") if p]
                cards = sorted(Card.parse(p) for p in parts)
                if len(set(cards)) != len(cards):
                    raise InvalidActionError(f"duplicate card in {text!r}")
                if len(cards) < 3:
                    raise InvalidActionError(f"a meld needs at least 3 cards: {text!r}")
                return Action(head, cards=tuple(cards))
        except (InvalidCardError, InvalidMeldError) as exc:
            raise InvalidActionError(f"bad card in action {text!r}: {exc}") from None
        raise InvalidActionError(
            f"unknown action {text!r}; expected e.g. take_upcard, pass, draw:stock, "
            "draw:discard, discard:QS, knock:3C, gin:3C, big_gin, layoff:8H>0, accept_layoffs, "
            "done, meld:5H,6H,7H, go_out:QS"
        )

    def __str__(self) -> str:
        k = self.kind
        if k in _BARE:
            return k
        if k == ActionKind.LAYOFF:
            return f"layoff:{self.card}>{self.target}"
        if k == ActionKind.MELD:
            return "meld:" + ",".join(c.text for c in self.cards)
        if self.melds:
            return f"{k}:{self.card}" + "".join("|" + m.text for m in self.melds)
        return f"{k}:{self.card}"

    @property
    def text(self) -> str:
        return str(self)


_CACHE: dict[str, Action] = {}


def _fill_cache() -> None:
    from .cards import full_deck

    for k in _BARE:
        _CACHE[k] = Action(k)
    for c in full_deck():
        for k in _ONE_CARD:
            _CACHE[f"{k}:{c}"] = Action(k, c)
        for i in range(12):
            _CACHE[f"layoff:{c}>{i}"] = Action(ActionKind.LAYOFF, c, target=i)


_fill_cache()
