"""The Expert's search: budgets, samples consistent with what the seat knows, exact scoring.

(That it never sees hidden cards is proved for every level, the Expert included, by
``test_protocol.test_hidden_cards_never_change_a_decision``.)
"""

from __future__ import annotations

import random

import pytest

from games.bots import get_bot
from games.bots.cardmath import BIT_VALUE, bits_of, dw, mask_from, melds_with
from games.bots.gin_sampler import sample_consistent
from games.bots.gin_search import choose_throw, knock_points, playout
from games.bots.knowledge import from_view
from games.bots.rummy_search import rummy_playout, sample_deal
from games.engine import legal_actions, view_for
from tests.support.bots import decision_points as _decision_points
from tests.support.bots import hollywood_view

RULES = (10, 1, 25, 31, 25, True)  # knock limit, multiplier, gin, big gin, undercut, big gin ok


def _searched(mode, players, **options):
    """(samples used) for every decision of a seeded Medium game that the Expert searched."""
    used = []
    for i, state in enumerate(_decision_points(mode, players, seed=4, limit=80)):
        bot = get_bot("expert", seed=i, **options)
        action = bot.choose(view_for(state, state.to_act), legal_actions(state))
        assert action in legal_actions(state)
        if bot.samples_used:
            used.append(bot.samples_used)
    return used


@pytest.mark.parametrize("mode,players", [("classic", 2), ("rummy", 2), ("rummy", 3)])
def test_search_stops_at_max_samples(mode, players):
    used = _searched(
        mode, players, time_budget=60.0, max_samples=5, min_samples=2, extend_samples=5
    )
    assert used, "the Expert searched no decision of the game"
    assert set(used) == {5}


def test_undecided_gin_searches_sample_on_to_extend_samples():
    used = _searched(
        "classic", 2, time_budget=60.0, max_samples=8, min_samples=2, extend_samples=20
    )
    assert set(used) == {8, 20}, used


class _Verdict:
    """Stands in for a search's statistics: every candidate ``t`` standard errors ahead."""

    def __init__(self, t):
        self.t = t

    def best_t(self, min_gain):
        return self.t


@pytest.mark.parametrize("t,expected", [(0.2, 10), (0.75, 30), (1.4, 30), (1.5, 10), (9, 10)])
def test_only_searches_between_extend_from_and_confidence_are_extended(t, expected):
    bot = get_bot(
        "expert",
        seed=1,
        time_budget=60.0,
        max_samples=10,
        min_samples=2,
        extend_samples=30,
        extend_from=0.75,
        confidence=1.5,
    )
    know = from_view(_classic_views()[12])
    draw = bot.gin_sample
    assert sum(1 for _ in bot._samples(know, draw, _Verdict(t))) == expected
    assert sum(1 for _ in bot._samples(know, draw)) == 10  # no statistics: never extended


@pytest.mark.parametrize("mode,players", [("classic", 2), ("rummy", 4)])
def test_search_stops_at_the_time_budget_after_min_samples(mode, players):
    used = _searched(mode, players, time_budget=0.0, max_samples=200, min_samples=3)
    assert used and set(used) == {3}


@pytest.mark.parametrize("mode,players", [("classic", 2), ("rummy", 3)])
def test_search_stops_at_the_hard_limit_even_below_min_samples(mode, players):
    used = _searched(
        mode, players, time_budget=60.0, max_samples=200, min_samples=100, hard_limit=0.0
    )
    assert used and set(used) == {2}


def test_a_starved_process_is_not_cut_short(monkeypatch):
    """The safety net counts the deciding thread's CPU time, not the clock: a process that
    waits (a loaded machine) decides as it would on an idle one."""
    import games.bots.expert_search as search

    calm = _searched("classic", 2, max_samples=6, min_samples=2, extend_samples=6)
    ticks = iter(range(0, 10**9, 10))  # the clock jumps 10 s between any two readings
    monkeypatch.setattr(search.time, "perf_counter", lambda: float(next(ticks)))
    starved = _searched("classic", 2, max_samples=6, min_samples=2, extend_samples=6)
    assert calm and starved == calm


def _classic_views():
    out = []
    for state in _decision_points("classic", 2, seed=6, limit=60):
        out.append(view_for(state, state.to_act))
    return out


def test_opponent_samples_fit_everything_the_seat_knows():
    rng = random.Random(1)
    for view in _classic_views()[10:]:
        know = from_view(view)
        opp = know.opponent()
        unseen = know.unseen()
        for _ in range(5):
            hand, stock = sample_consistent(know, rng)
            assert hand.bit_count() == opp.size
            assert hand & opp.known == opp.known
            assert not hand & stock
            assert (hand & ~opp.known) | stock == unseen
            assert not hand & (know.hand | know.pile_mask)


def test_rummy_deals_fit_every_hand_size():
    rng = random.Random(2)
    for state in _decision_points("rummy", 4, seed=8, limit=60)[20:]:
        know = from_view(view_for(state, state.to_act))
        hands, stock = sample_deal(know, rng)
        seen = know.hand | know.pile_mask
        total = 0
        for seat, opp in know.opponents.items():
            assert hands[seat].bit_count() == opp.size
            assert hands[seat] & opp.known == opp.known
            assert not hands[seat] & seen
            assert not hands[seat] & total
            total |= hands[seat]
        assert not set(stock) & set(bits_of(total | seen))
        assert len(stock) == know.unseen().bit_count() - (total & know.unseen()).bit_count()


def _m(text: str) -> int:
    return mask_from(text.split())


def test_knock_points_score_like_the_engine():
    knocker = _m("AC 2C 3C 4D 5D 6D 7S 7H 7C 3H")  # deadwood 3
    loose = _m("KS QH JD 9C 8H 6S 5C TD 2S KH")
    assert knock_points(knocker, loose, False, False, RULES) == dw(loose) - 3
    # The defender lays 4C and 7D off and keeps AS 2S: 3 = 3 is an undercut (25 points).
    close = _m("4C 7D KS KH KD QS QH QD 2S AS")
    assert knock_points(knocker, close, False, False, RULES) == -25
    assert knock_points(knocker, loose, True, False, RULES) == 25 + dw(loose)
    assert knock_points(knocker, loose, True, True, (10, 2, 25, 31, 25, True)) == 2 * (
        31 + dw(loose)
    )


def test_playout_goes_gin_with_the_drawn_card():
    hand = _m("AC 2C 3C 4C 5D 6D 7D 9S 9H KD")
    other = _m("2S 4S 6S 8S TS QS 3H 5H 7H JH")
    stock = [_m("KH"), _m("9C")]  # pops from the end: 9C first
    pile = [_m("QD")]
    assert playout([hand, other], stock, pile, 0, RULES, rng=random.Random(1)) == 25 + dw(other)


def _throw_by_solving(h11: int, forbid: int, other: int, danger: float) -> tuple[int, ...]:
    """``choose_throw`` by the rule its docstring states: one exact solve per card thrown;
    the least (deadwood − value/100 + danger if it feeds ``other``), and the least deadwood
    (then that key); the first card in bit order on a tie."""
    from games.engine.meld_search import deadwood_of_mask

    cards = list(bits_of(h11 & ~forbid))
    dead = {b: deadwood_of_mask(h11 ^ b) for b in cards}
    key = {
        b: dead[b] - BIT_VALUE[b] * 0.01 + (danger if melds_with(b, other) else 0.0)
        for b in cards
    }
    best = min(cards, key=key.__getitem__)
    low = min(cards, key=lambda b: (dead[b], key[b]))
    return best, dead[best], dead[low], low


def test_choose_throw_matches_one_solve_per_card():
    """The all-at-once deadwood of ``choose_throw`` (set choices, one lane changed per card)
    gives exactly the throws of solving every 10-card hand, ties included, on random hands
    and on hands heavy in sets (3-4 cards of a rank, in runs or not)."""
    rng = random.Random(24)
    deck = list(BIT_VALUE)
    for i in range(6000):
        if i % 2:
            ranks = rng.sample(range(13), rng.randint(3, 5))
            pool = [b for b in deck if (b.bit_length() - 1) % 16 in ranks] + rng.sample(deck, 8)
            h = sum(rng.sample(sorted(set(pool)), 11))
        else:
            h = sum(rng.sample(deck, rng.choice((10, 11, 12))))
        forbid = rng.choice((0, h & -h))
        other = sum(rng.sample([b for b in deck if not b & h], 10))
        danger = rng.choice((0.0, 4.0))
        assert choose_throw(h, forbid, other, danger) == _throw_by_solving(
            h, forbid, other, danger
        ), hex(h)


def test_rummy_playout_scores_going_out_and_going_rummy():
    # Seat 0 draws the 4H, melds everything and goes out with a face-down discard.
    hand0 = _m("AH 2H 3H 5S 5D 5C KC")
    hand1 = _m("9S 9D 2C 7D QS JC 4S")
    stock = [_m("TD"), _m("4H")]
    pile = [_m("KH")]
    rummy = rummy_playout([hand0, hand1], [False, False], [], stock, pile, 0, me=0)
    value1 = sum(BIT_VALUE[b] for b in bits_of(hand1))
    assert rummy == 2 * value1  # nothing placed before: going rummy doubles
    placed = rummy_playout([hand0, hand1], [True, False], [], stock, pile, 0, me=1)
    assert placed == -value1


def _reference_thin(hand, keep, extra, rng):
    """Thinning as specified: throw the card (none of ``keep``) leaving the least deadwood
    less a hundredth of its value, met in card order, each tie of the best so far drawing
    one random and taking its place with chance 1/(ties so far)."""
    for _ in range(extra):
        best_key, best_b, ties = None, 0, 0
        for b in bits_of(hand & ~keep):
            key = dw(hand ^ b) - BIT_VALUE[b] * 0.01
            if best_key is None or key < best_key:
                best_key, best_b, ties = key, b, 1
            elif key == best_key:
                ties += 1
                if rng.random() * ties < 1.0:
                    best_b = b
        hand ^= best_b
    return hand


def test_thinning_is_the_same_with_its_memo_and_as_specified():
    """``thin_fast`` with the ``Dealer``'s memo throws the same cards and spends the same
    random draws as without it and as the plain specification, in hands rich in ties and
    sets, and on the few cards left late in a hand, where the memo serves most throws."""
    from games.bots.gin_sampler import thin_fast

    deck = [1 << (16 * s + r) for s in range(4) for r in range(13)]
    pick = random.Random(11)
    memo: dict = {}
    keep = mask_from(["5H", "6H", "7H"])
    pool = [b for b in deck if not b & keep]
    small = pick.sample(pool, 14)  # late in a hand: few unseen cards, dealt again and again
    for i in range(400):
        cards = pick.sample(small, 13) if i % 2 else pick.sample(pool, 13)
        hand = keep
        for b in cards:
            hand |= b
        seed = pick.random()
        ref_rng, plain_rng, memo_rng = (random.Random(seed) for _ in range(3))
        want = _reference_thin(hand, keep, 6, ref_rng)
        assert thin_fast(hand, keep, 6, plain_rng) == want
        assert thin_fast(hand, keep, 6, memo_rng, memo) == want
        assert ref_rng.random() == plain_rng.random() == memo_rng.random()
        assert want & keep == keep and want.bit_count() == 10
    assert len(memo) < 400 * 6  # the late hands came back


def test_fast_opponent_sampler_matches_the_reference_sampler():
    """``thin_fast`` thins the same way as ``gin.sample_opponent`` (up to ties), and the
    ``Dealer`` deals hands with the same card frequencies and deadwood."""
    from games.bots.gin import deal_opponent, sample_opponent
    from games.bots.gin_sampler import Dealer, thin_fast

    same = total = 0
    views = _classic_views()[10:]
    for view in views:
        know = from_view(view)
        for r in range(3):
            a = sample_opponent(know, random.Random(r))
            hand, chosen, _rest, extra = deal_opponent(know, random.Random(r), 6)
            b = thin_fast(hand, know.opponent().known, extra, random.Random(r))
            assert b.bit_count() == a[0].bit_count()
            assert dw(b) == dw(a[0])  # the greedy reaches the same deadwood
            same += a[0] == b
            total += 1
    assert same >= 0.5 * total  # the rest differ by which of equal cards went first

    know = from_view(views[len(views) // 2])
    dealer = Dealer(know)
    known = know.opponent().known
    n = 3000
    freq_ref: dict[int, float] = {}
    freq_new: dict[int, float] = {}
    rng_a, rng_b = random.Random(5), random.Random(6)
    for _ in range(n):
        a = sample_opponent(know, rng_a)[0]
        b = dealer.thinned(rng_b)
        assert b.bit_count() == a.bit_count() and b & known == known
        for bit in bits_of(a):
            freq_ref[bit] = freq_ref.get(bit, 0) + 1 / n
        for bit in bits_of(b):
            freq_new[bit] = freq_new.get(bit, 0) + 1 / n
    for bit in set(freq_ref) | set(freq_new):
        assert abs(freq_ref.get(bit, 0) - freq_new.get(bit, 0)) < 0.05


def test_game_equity_is_a_fair_race_and_values_points_by_the_score():
    from games.bots.equity import GameEquity, equity_table

    for mode, target in (("classic", 100), ("straight", 100), ("oklahoma", 150)):
        table = equity_table(mode, target)
        assert table[target][target] == pytest.approx(0.5)
        assert table[20][80] > 0.5 > table[80][20]
        assert all(table[a][50] >= table[a + 1][50] for a in range(1, target))
    even = GameEquity("classic", 100, 0, 0)
    assert even.value(10) == pytest.approx(10, rel=0.3)
    assert even.value(-10) == pytest.approx(-10, rel=0.3)
    # At 95-20 any won hand ends the game: 6 points are worth as much as 40.
    close = GameEquity("classic", 100, 95, 20)
    assert close.value(6) == close.value(40) > 0
    # At 20-95 a lost hand ends it, however small.
    behind = GameEquity("classic", 100, 20, 95)
    assert behind.value(-6) == behind.value(-40) < 0


def test_hollywood_value_counts_the_columns_a_win_scores_in():
    from games.bots.equity import hollywood_value
    from games.engine.modes import get_mode

    hw = get_mode("hollywood")

    cols = [{"points": [60, 10], "over": False}, {"points": [20, 0], "over": False}]
    cols.append({"points": [0, 0], "over": False})
    value = hollywood_value(hw, {"columns": cols}, [3, 1], 0)
    # My 4th win scores in all three columns; theirs (their 2nd) in the first two.
    assert value(10) == 3 * (10 + 25)
    assert value(-10) == -2 * (10 + 25)
    # 40 points carry my first column to the target: a game bonus there.
    assert value(40) == 3 * (40 + 25) + 100
    # A column that is over takes no more points.
    cols[0]["over"] = True
    value = hollywood_value(hw, {"columns": cols}, [3, 1], 0)
    assert value(10) == 2 * (10 + 25)
    assert value(-10) == -(10 + 25)
    assert hollywood_value(hw, {}, [0, 0], 0) is None


def test_hard_knock_rule_weighs_hollywood_columns():
    """Hard's knock rule values results by what they add to the three games (line bonus in
    every column the hand counts in); with plain points it is the Classic rule exactly."""
    from games.bots.gin import knock_pays, knock_value

    h10 = mask_from("AS 2S 3S 4H 5H 6H 7C 8C 9C 4D".split())  # 4 deadwood
    small = mask_from("KS KH KD QS QH QD JS JH JD 7D".split())  # 7 deadwood: a 3-point win
    under = mask_from("KS KH KD QS QH QD JS JH JD 3D".split())  # 3 deadwood: an undercut
    know = from_view(hollywood_view(1, 1))
    assert know.hand_value is not None
    plain = from_view(hollywood_view(1, 1))
    plain.hand_value = None
    for samples in ([small] * 4, [small, small, small, under], [small, under]):
        ev, undercuts = knock_value(plain, h10, samples)
        assert knock_pays(plain, h10, samples, 7.0) == (ev >= 7.0 and undercuts < 0.35)
    # A sure 3-point win: below Classic's 7-point margin, but in Hollywood it wins the hand,
    # worth its line bonus in two columns: knock.
    assert not knock_pays(plain, h10, [small] * 4, 7.0)
    assert knock_pays(know, h10, [small] * 4, 7.0)
    # Undercut in half the samples: no knock either way.
    assert not knock_pays(know, h10, [small, under], 7.0)


def test_the_cpu_clock_falls_back_to_the_clock_where_the_platform_has_none(monkeypatch):
    """WebAssembly Python (the offline game) fails on ``time.thread_time``: the Expert then
    uses the clock instead of raising on every decision."""
    import games.bots.expert_search as search

    assert search.cpu_clock is search.time.thread_time

    def unsupported():
        raise OSError(28, "Invalid argument")

    monkeypatch.setattr(search.time, "thread_time", unsupported)
    assert search._cpu_clock() is search.time.perf_counter

