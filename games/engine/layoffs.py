"""Lay-offs: the defender's best lay-offs onto the knocker's melds (gin), and the greedy
closure of what can be laid off onto a table (rummy's stalemate test, the bots' playouts)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from .cards import BY_BIT, Card, mask_of
from .errors import InvalidCardError
from .meld import Meld, attach_mask, sorted_meld_cards
from .meld_search import MeldResult, best_melds, deadwood_of_mask

__all__ = ["LayoffResult", "best_layoffs", "layoff_closure", "layoff_deadwood"]


def _table_of(melds: Iterable[Meld | Iterable[str | Card] | str]) -> list[Meld]:
    out = []
    for meld in melds:
        if isinstance(meld, Meld):
            out.append(meld)
        elif isinstance(meld, str):
            out.append(Meld.parse(meld))
        else:
            out.append(Meld(meld))
    return out


def layoff_closure(
    table: Sequence[tuple[str, int]], cards: int
) -> tuple[int, list[tuple[int, int]], list[int]]:
    """Lay off as many of ``cards`` as possible onto ``table`` ((kind, mask) pairs).

    Runs are extended first (chains included, both ends), then sets of three completed.
    Returns (laid-off mask, [(card bit, meld index)] in a legal order, new table masks).
    """
    masks = [mm for _, mm in table]
    kinds = [k for k, _ in table]
    remaining = cards
    seq: list[tuple[int, int]] = []
    changed = True
    while changed and remaining:
        changed = False
        for i, mm in enumerate(masks):
            if kinds[i] != "run":
                continue
            att = ((mm << 1) | (mm >> 1)) & remaining
            while att:
                low = att & -att
                seq.append((low, i))
                mm |= low
                remaining ^= low
                changed = True
                att = ((mm << 1) | (mm >> 1)) & remaining
            masks[i] = mm
    if remaining:
        for i, mm in enumerate(masks):
            if kinds[i] == "set":
                att = attach_mask("set", mm) & remaining
                if att:
                    seq.append((att, i))
                    masks[i] = mm | att
                    remaining ^= att
    return cards ^ remaining, seq, masks


class LayoffResult:
    """The defender's best showdown: lay-offs plus the arrangement of what is left."""

    __slots__ = ("layoffs", "table", "own", "laid_off_mask")

    def __init__(
        self,
        layoffs: tuple[tuple[Card, int], ...],
        table: tuple[tuple[Card, ...], ...],
        own: MeldResult,
        laid_off_mask: int,
    ) -> None:
        self.layoffs = layoffs
        self.table = table
        self.own = own
        self.laid_off_mask = laid_off_mask

    @property
    def melds(self) -> tuple[Meld, ...]:
        return self.own.melds

    @property
    def deadwood_cards(self) -> tuple[Card, ...]:
        return self.own.deadwood_cards

    @property
    def deadwood(self) -> int:
        return self.own.deadwood

    def to_dict(self) -> dict[str, Any]:
        return {
            "layoffs": [[c.text, i] for c, i in self.layoffs],
            "table": [[c.text for c in m] for m in self.table],
            "melds": [m.to_list() for m in self.melds],
            "deadwood_cards": [c.text for c in self.deadwood_cards],
            "deadwood": self.deadwood,
        }

    def __repr__(self) -> str:
        lo = ",".join(f"{c}>{i}" for c, i in self.layoffs)
        return f"LayoffResult(layoffs=[{lo}] {self.own!r})"


def _best_layoff_set(d: int, table: Sequence[tuple[str, int]]) -> tuple[int, int]:
    """(cards laid off, deadwood left) of the defender's best lay-offs of ``d`` onto
    ``table`` ((kind, mask) pairs): every subset of what can be laid off that lays off as a
    whole; ties prefer fewer lay-offs, then the first subset in a fixed enumeration order."""
    cand, _, _ = layoff_closure(table, d)
    if not cand:
        return 0, deadwood_of_mask(d)
    best_key: tuple[int, int] | None = None
    best_s = 0
    s = cand
    while True:
        laid, _, _ = layoff_closure(table, s)
        if laid == s:
            key = (deadwood_of_mask(d ^ s), s.bit_count())
            if best_key is None or key < best_key:
                best_key = key
                best_s = s
        if s == 0:
            break
        s = (s - 1) & cand
    assert best_key is not None  # the empty set always lays off
    return best_s, best_key[0]


def layoff_deadwood(defender: int, table: Sequence[tuple[str, int]]) -> int:
    """The deadwood ``best_layoffs`` leaves the defender (a card mask) against the knocker's
    melds as (kind, mask) pairs, without building the lay-offs (the bots' playouts)."""
    return _best_layoff_set(defender, table)[1]


def best_layoffs(
    defender_cards: Iterable[str | Card] | int,
    knocker_melds: Iterable[Meld | Iterable[str | Card] | str],
) -> LayoffResult:
    """Choose the defender's lay-offs and own arrangement together for the lowest deadwood.

    Chains count (4 then 5 onto A-2-3), both ends of a run, and a set of three taking its
    fourth. Ties prefer fewer lay-offs, then the first subset in a fixed enumeration order.

    >>> r = best_layoffs("4S 5S 9D 9C KH".split(), ["AS,2S,3S"])
    >>> [(str(c), i) for c, i in r.layoffs], r.deadwood
    ([('4S', 0), ('5S', 0)], 28)
    """
    d = mask_of(defender_cards)
    table_melds = _table_of(knocker_melds)
    used = 0
    for meld in table_melds:
        if meld.mask & (used | d):
            raise InvalidCardError(f"meld {meld} overlaps the defender's cards or another meld")
        used |= meld.mask
    table = [(m.kind, m.mask) for m in table_melds]
    best_s, _ = _best_layoff_set(d, table)
    _, seq, masks = layoff_closure(table, best_s)
    return LayoffResult(
        tuple((BY_BIT[b], i) for b, i in seq),
        tuple(tuple(sorted_meld_cards(k, mm)) for (k, _), mm in zip(table, masks, strict=True)),
        best_melds(d ^ best_s),
        best_s,
    )
