"""best_melds / best_discards / best_layoffs against an independent brute-force solver."""

import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine import (
    Card,
    InvalidCardError,
    Meld,
    best_discards,
    best_layoffs,
    best_melds,
    deadwood,
    full_deck,
)

RANKS = "A23456789TJQK"
DECK = [c.text for c in full_deck()]


# ------------------------------------------------------------------ brute force (independent)
def _rank(t):
    return RANKS.index(t[0]) + 1


def _val(t):
    return min(_rank(t), 10)


def _is_meld(cards):
    if len(cards) < 3:
        return False
    ranks = [_rank(c) for c in cards]
    suits = [c[1] for c in cards]
    if len(set(ranks)) == 1 and len(cards) <= 4 and len(set(suits)) == len(cards):
        return True
    if len(set(suits)) == 1:
        rs = sorted(ranks)
        return all(b == a + 1 for a, b in zip(rs, rs[1:], strict=False))
    return False


def _all_melds(cards):
    out = []
    for n in range(3, len(cards) + 1):
        for combo in itertools.combinations(cards, n):
            if _is_meld(combo):
                out.append(frozenset(combo))
    return out


def brute_deadwood(cards):
    cards = list(cards)
    melds = _all_melds(cards)
    best = sum(_val(c) for c in cards)

    def rec(i, used):
        nonlocal best
        dw = sum(_val(c) for c in cards if c not in used)
        best = min(best, dw)
        for j in range(i, len(melds)):
            if not (melds[j] & used):
                rec(j + 1, used | melds[j])

    rec(0, frozenset())
    return best


def _check_arrangement(cards, res):
    seen = set()
    for m in res.melds:
        texts = m.to_list()
        assert _is_meld(texts), texts
        assert not (set(texts) & seen)
        seen |= set(texts)
    dead = {c.text for c in res.deadwood_cards}
    assert not (dead & seen)
    assert dead | seen == {Card(c).text for c in cards}
    assert res.deadwood == sum(_val(c) for c in dead)


# ------------------------------------------------------------------ examples
def test_a_run_and_a_set_leave_the_high_cards_as_deadwood():
    res = best_melds("AS 2S 3S 7D 7H 7C KD KH 9S 4C".split())
    assert res.to_dict() == {
        "melds": [["AS", "2S", "3S"], ["7C", "7D", "7H"]],
        "deadwood_cards": ["4C", "KD", "KH", "9S"],
        "deadwood": 33,
    }


def test_card_shared_by_set_and_run_goes_where_it_saves_most():
    res = best_melds("7C 7D 7H 7S 8S 9S".split())
    assert res.deadwood == 0
    assert sorted(m.kind for m in res.melds) == ["run", "set"]


def test_runs_do_not_wrap_and_aces_are_low():
    assert best_melds("QS KS AS".split()).deadwood == 21
    assert best_melds("KS AS 2S".split()).deadwood == 13
    assert best_melds("AS 2S 3S".split()).deadwood == 0


def test_bad_card_text_raises_clear_error():
    with pytest.raises(InvalidCardError, match="invalid card"):
        best_melds(["ZZ"])
    with pytest.raises(InvalidCardError, match="duplicate"):
        best_melds(["AS", "AS"])
    assert Card.parse("10d") is Card("TD")
    assert str(Card("TD")) == "TD" and Card("TD").value == 10 and Card("QS").rank == 12


def test_meld_value_type():
    m = Meld.parse("7H,5H,6H")
    assert m.kind == "run" and str(m) == "5H,6H,7H"
    with pytest.raises(ValueError):
        Meld.parse("5H,6H,8H")


def test_accepts_any_count_and_large_hands():
    assert best_melds([]).deadwood == 0
    assert best_melds(full_deck()).deadwood == 0
    rng = random.Random(5)
    for _ in range(20):
        hand = rng.sample(DECK, 30)
        res = best_melds(hand)
        _check_arrangement(hand, res)


def test_best_discards_of_eleven():
    res = best_discards("AS 2S 3S 4S 7D 7H 7C KD KH KC QS".split())
    assert [(str(c), r.deadwood) for c, r in res] == [("QS", 0)]
    res = best_discards("AS 2S 3S 9D 9H 9C 5D 6D 7D KH QC".split())
    assert [str(c) for c, _ in res] == ["QC", "KH"]  # both leave 10


def test_layoff_chain_four_then_five():
    r = best_layoffs("4S 5S 9D 9C KH".split(), ["AS,2S,3S"])
    assert [(str(c), i) for c, i in r.layoffs] == [("4S", 0), ("5S", 0)]
    assert r.deadwood == 28


def test_layoff_both_ends_and_set_to_four():
    r = best_layoffs("4H 8H 7C 2D KD".split(), ["5H,6H,7H", "7S,7D,7H".replace("7H", "7H")][:1])
    assert sorted(str(c) for c, _ in r.layoffs) == ["4H", "8H"]
    r = best_layoffs("7C 2D KD".split(), ["7S,7D,7H"])
    assert [str(c) for c, _ in r.layoffs] == ["7C"] and r.deadwood == 12


def test_layoff_chosen_jointly_with_own_arrangement():
    # 4S could be laid off onto A-2-3S, but it is worth more in the defender's own set of 4s
    r = best_layoffs("4S 4H 4D 9C".split(), ["AS,2S,3S"])
    assert r.layoffs == () and r.deadwood == 9
    # ... while 5S,6S only count when the 4S goes first (chain), and then KD is all that is left
    r = best_layoffs("4S 5S 6S KD".split(), ["AS,2S,3S"])
    assert r.deadwood == 10


# ------------------------------------------------------------------ properties
@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(DECK), min_size=0, max_size=11, unique=True))
def test_best_melds_equals_brute_force(hand):
    res = best_melds(hand)
    assert res.deadwood == brute_deadwood(hand)
    assert deadwood(hand) == res.deadwood
    _check_arrangement(hand, res)


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_best_melds_meld_rich_equals_brute_force(data):
    # hands built from overlapping sets and runs, where choices matter
    rank = data.draw(st.integers(2, 11))
    suit = data.draw(st.sampled_from("CDHS"))
    pool = [f"{RANKS[r - 1]}{s}" for r in range(rank - 1, rank + 3) for s in "CDHS"]
    pool += [f"{RANKS[r - 1]}{suit}" for r in range(1, 14)]
    pool = sorted(set(pool))
    hand = data.draw(st.lists(st.sampled_from(pool), min_size=8, max_size=11, unique=True))
    res = best_melds(hand)
    assert res.deadwood == brute_deadwood(hand)
    _check_arrangement(hand, res)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(DECK), min_size=11, max_size=11, unique=True))
def test_best_discards_property(hand):
    results = best_discards(hand)
    best = min(brute_deadwood([c for c in hand if c != d]) for d in hand)
    assert results and all(r.deadwood == best for _, r in results)
    expect = sorted(d for d in hand if brute_deadwood([c for c in hand if c != d]) == best)
    assert sorted(str(c) for c, _ in results) == sorted(Card(d).text for d in expect)


def test_dynamic_programme_for_big_hands_agrees_with_enumeration():
    from games.engine.cards import mask_of
    from games.engine.meld_search import _solve, _solve_dp

    rng = random.Random(11)
    for n in (12, 16, 20, 26, 40):
        for _ in range(40):
            m = mask_of(rng.sample(DECK, n))
            assert _solve(m)[0] == _solve_dp(m)[0]


def _brute_can_lay_off(table, cards):
    """Independent check: can every card of ``cards`` be laid off (in some order)?"""
    table = [list(m) for m in table]
    left = set(cards)
    progress = True
    while left and progress:
        progress = False
        for c in sorted(left):
            for meld in table:
                if _is_meld(meld + [c]) and (len(meld) != 4 or _is_run(meld)):
                    meld.append(c)
                    left.discard(c)
                    progress = True
                    break
    return not left


def _is_run(cards):
    return len({c[1] for c in cards}) == 1 and _is_meld(cards)


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_best_layoffs_equals_brute_force(data):
    # knocker melds from a few runs/sets; defender cards near them so chains matter
    suit = data.draw(st.sampled_from("CDHS"))
    lo = data.draw(st.integers(1, 9))
    ln = data.draw(st.integers(3, 4))
    run = [f"{RANKS[r - 1]}{suit}" for r in range(lo, lo + ln)]
    rank = data.draw(st.sampled_from([r for r in RANKS if f"{r}{suit}" not in run]))
    set3 = [f"{rank}{s}" for s in "CDHS" if s != suit][:3]
    table = [run, set3]
    used = set(run) | set(set3)
    near = [c for c in DECK if c not in used]
    defender = data.draw(st.lists(st.sampled_from(near), min_size=10, max_size=10, unique=True))
    res = best_layoffs(defender, [",".join(m) for m in table])
    best = brute_deadwood(defender)
    for n in range(1, len(defender) + 1):
        for combo in itertools.combinations(defender, n):
            if _brute_can_lay_off(table, combo):
                rest = [c for c in defender if c not in combo]
                best = min(best, brute_deadwood(rest))
    assert res.deadwood == best
    laid = [c.text for c, _ in res.layoffs]
    assert _brute_can_lay_off(table, laid)
