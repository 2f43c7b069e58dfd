"""One named test per rule of shared/RULES.md, on hand-built deals: the upcard offer,
knocking, lay-offs, and gin decided by the cards (the hand's end, the game's end and the
variants: test_engine_rules_endings.py; basic rummy: test_engine_rules_rummy.py)."""

import pytest

from games.engine import (
    CannotDiscardTakenCardError,
    HandOutcome,
    IllegalActionError,
    InvalidLayoffError,
    KnockTooHighError,
    NotGinError,
    Phase,
    WrongPhaseError,
    get_mode,
    is_legal,
)
from tests.support.engine import (
    H,
    assert_unchanged_on_error,
    game,
    knock_deal,
    legal,
    meld_index,
    play,
)

# ------------------------------------------------------------------ upcard offer


def test_upcard_offered_to_non_dealer_then_dealer():
    s = game(deals=[knock_deal()])
    assert s.phase is Phase.OFFER and s.to_act == 1
    assert legal(s) == ["take_upcard", "pass"]
    s = play(s, "pass")
    assert s.phase is Phase.OFFER and s.to_act == 0
    s = play(s, "take_upcard")
    assert s.to_act == 0 and s.phase is Phase.DISCARD and "KC" in [c.text for c in s.hands[0]]
    s = play(s, "discard:QS")
    assert s.to_act == 1 and s.phase is Phase.DRAW


def test_both_pass_then_non_dealer_draws_from_stock():
    s = play(game(deals=[knock_deal()]), "pass", "pass")
    assert s.to_act == 1 and s.phase is Phase.DRAW
    assert legal(s) == ["draw:stock"]
    assert_unchanged_on_error(s, "draw:discard", WrongPhaseError)


def test_upcard_taker_discards_then_other_player_goes():
    s = play(game(deals=[knock_deal()]), "take_upcard")
    assert s.to_act == 1
    assert "discard:KC" not in legal(s)
    assert_unchanged_on_error(s, "discard:KC", CannotDiscardTakenCardError)
    s = play(s, "discard:3C")
    assert s.to_act == 0 and s.phase is Phase.DRAW


def test_cannot_discard_card_just_taken_from_discard_pile():
    s = play(game(deals=[knock_deal()]), "pass", "pass", "draw:stock", "discard:KD")
    s = play(s, "draw:discard")  # seat 0 takes KD
    assert_unchanged_on_error(s, "discard:KD", CannotDiscardTakenCardError)
    assert_unchanged_on_error(s, "knock:KD", CannotDiscardTakenCardError)
    assert s.known[0] == [s.hands[0][-1]]  # public knowledge


def test_card_drawn_from_stock_may_be_discarded():
    s = play(game(deals=[knock_deal()]), "pass", "pass", "draw:stock")
    assert "discard:KD" in legal(s)
    s = play(s, "discard:KD")
    assert s.discard[-1].text == "KD"


# ------------------------------------------------------------------ knocking


def test_knock_limit_counts_ten_cards_without_knock_card():
    s = play(game(deals=[knock_deal()]), "pass", "pass", "draw:stock")
    # with KD the eleven cards hold 13 deadwood; knocking KD leaves 3
    assert "knock:KD" in legal(s)
    s = play(s, "knock:KD")
    hr = s.hand_results[-1]
    assert hr.outcome is HandOutcome.KNOCK and hr.knocker_deadwood == 3 and hr.knock_card == "KD"


def test_knock_above_limit_raises_and_changes_nothing():
    knocker = H("AS 2S 3S 4H 5H 6H 7C 7D 9H 3C")  # 7C 7D 9H 3C = 26 deadwood
    s = play(game(deals=[knock_deal(knocker=knocker)]), "pass", "pass", "draw:stock")
    assert not [a for a in legal(s) if a.startswith("knock")]
    assert_unchanged_on_error(s, "knock:KD", KnockTooHighError)


def test_knock_score_is_defender_minus_knocker_deadwood():
    s = play(game(deals=[knock_deal()]), "pass", "pass", "draw:stock", "knock:KD")
    hr = s.hand_results[-1]
    assert (hr.winner, hr.defender_deadwood, hr.points) == (1, 38, 35)
    assert s.scores == [0, 35]


def test_gin_scores_bonus_plus_whole_deadwood():
    knocker = H("AS 2S 3S 4H 5H 6H 7C 7D 7H 4S")
    s = play(game(deals=[knock_deal(knocker=knocker)]), "pass", "pass", "draw:stock")
    assert "gin:KD" in legal(s) and "knock:KD" not in legal(s)
    assert_unchanged_on_error(s, "knock:KD", IllegalActionError)
    s = play(s, "gin:KD")
    hr = s.hand_results[-1]
    assert hr.outcome is HandOutcome.GIN and hr.points == 25 + 38


def test_gin_claim_with_deadwood_raises():
    s = play(game(deals=[knock_deal()]), "pass", "pass", "draw:stock")
    assert_unchanged_on_error(s, "gin:KD", NotGinError)
    assert_unchanged_on_error(s, "big_gin", NotGinError)


def test_big_gin_all_eleven_meld_scores_31():
    knocker = H("AS 2S 3S 4S 4H 5H 6H 7C 7D 7H")
    s = play(game(deals=[knock_deal(knocker=knocker, stock=("7S",))]), "pass", "pass", "draw:stock")
    acts = legal(s)
    assert "big_gin" in acts and "gin:4S" in acts  # a player may still choose plain gin
    big = play(s, "big_gin")
    hr = big.hand_results[-1]
    assert hr.outcome is HandOutcome.BIG_GIN and hr.points == 31 + 38 and hr.knock_card is None
    gin = play(s, "gin:4S")
    assert gin.hand_results[-1].outcome is HandOutcome.GIN and gin.hand_results[-1].points == 63


# ------------------------------------------------------------------ lay-offs


def test_layoff_chain_four_then_five_onto_ace_two_three():
    defender = H("4S 5S 9C 9D 9H KC QD JD 2H 8C")  # deadwood without lay-offs: 49
    s = play(game(deals=[knock_deal(defender=defender, upcard="KH")]), "pass", "pass")
    s = play(s, "draw:stock", "knock:KD")
    assert s.phase is Phase.LAYOFF and s.to_act == 0
    i = meld_index(s, "AS")
    assert f"layoff:5S>{i}" not in legal(s)
    assert_unchanged_on_error(s, f"layoff:5S>{i}", InvalidLayoffError)
    s = play(s, f"layoff:4S>{i}")
    assert f"layoff:5S>{i}" in legal(s)
    s = play(s, f"layoff:5S>{i}")
    hr = s.hand_results[-1]  # no more lay-offs possible: the showdown finished by itself
    assert hr.layoffs == (("4S", i), ("5S", i))
    assert hr.defender_deadwood == 40 and hr.points == 37


def test_layoff_onto_both_ends_of_a_run():
    knocker = H("5H 6H 7H 9C 9D 9S AS 2S 3S 3C")
    defender = H("4H 8H 4C 5C JD QD KS KC TC TS")
    deal = knock_deal(defender=defender, knocker=knocker, upcard="2C")
    s = play(game(deals=[deal]), "pass", "pass", "draw:stock", "knock:KD", "accept_layoffs")
    hr = s.hand_results[-1]
    assert sorted(c for c, _ in hr.layoffs) == ["4H", "8H"]
    assert hr.defender_deadwood == 4 + 5 + 10 * 6


def test_layoff_makes_set_of_three_into_four():
    defender = H("7S 4C 5C JD QD KS KC TC TS 2D")
    deal = knock_deal(defender=defender, upcard="2H")
    s = play(game(deals=[deal]), "pass", "pass", "draw:stock", "knock:KD")
    i = meld_index(s, "7C")
    assert legal(s)[0] == f"layoff:7S>{i}"
    s = play(s, f"layoff:7S>{i}")
    assert s.hand_results[-1].layoffs == (("7S", i),)


def test_defender_may_decline_layoffs_with_done():
    defender = H("7S 4C 5C JD QD KS KC TC TS 2D")
    deal = knock_deal(defender=defender, upcard="2H")
    s = play(game(deals=[deal]), "pass", "pass", "draw:stock", "knock:KD")
    s = play(s, "done")
    assert s.hand_results[-1].layoffs == () and s.hand_results[-1].defender_deadwood == 78


def test_no_layoffs_on_gin():
    knocker = H("AS 2S 3S 3H 4H 5H 6H 7C 7D 7H")
    defender = H("4S 5S 9C 9D 9H KC QD JD 2H 8C")  # 4S-5S could extend AS-3S: not on gin
    deal = knock_deal(defender=defender, knocker=knocker, upcard="2C")
    s = play(game(deals=[deal]), "pass", "pass", "draw:stock", "gin:KD")
    hr = s.hand_results[-1]
    assert hr.layoffs == () and hr.defender_deadwood == 49 and hr.points == 25 + 49


def test_knocker_never_lays_off_and_undercut_on_equal_deadwood():
    defender = H("9C 9D 9S 2D 3D 4D TS JS AH 2C")  # deadwood TS JS AH 2C? -> own TS JS dead: 23
    defender = H("9C 9D 9S 2D 3D 4D TS JS QS AH")  # TS-JS-QS run: deadwood AH + ... = 1
    s = play(game(deals=[knock_deal(defender=defender)]), "pass", "pass", "draw:stock", "knock:KD")
    hr = s.hand_results[-1]
    assert hr.outcome is HandOutcome.UNDERCUT and hr.winner == 0
    assert hr.points == 25 + (3 - 1)
    equal = H("9C 9D 9S 2D 3D 4D TS JS QS 3H")  # 3H lays off onto 4H-5H-6H -> 0
    s = play(game(deals=[knock_deal(defender=equal)]), "pass", "pass", "draw:stock", "knock:KD")
    s = play(s, "done")  # defender keeps 3H: deadwood 3 == knocker's 3
    hr = s.hand_results[-1]
    assert hr.outcome is HandOutcome.UNDERCUT and hr.points == 25 and hr.defender_deadwood == 3


def test_no_undercut_against_gin():
    knocker = H("AS 2S 3S 4H 5H 6H 7C 7D 7H 4S")
    defender = H("9C 9D 9S 2D 3D 4D TS JS QS KS")  # zero deadwood too
    s = play(game(deals=[knock_deal(defender=defender, knocker=knocker)]), "pass", "pass")
    s = play(s, "draw:stock", "gin:KD")
    hr = s.hand_results[-1]
    assert hr.outcome is HandOutcome.GIN and hr.winner == 1 and hr.points == 25


def test_knocker_may_show_any_legal_arrangement():
    from games.engine import IllegalMeldError

    knocker = H("4S 5S 6S 7S 7C 7D 7H 2C 3D AH")  # deadwood 6 either way
    defender = H("8S 9C 9D 9H KS QC JD TD 2H 3H")
    deal = knock_deal(defender=defender, knocker=knocker, upcard="QH")
    s = play(game(deals=[deal]), "pass", "pass", "draw:stock")
    shown = play(s, "knock:KD")  # engine's arrangement: the 7s as a set of four
    assert shown.hand_results[-1].layoffs == ()
    arranged = "knock:KD|7C,7D,7H|4S,5S,6S,7S"
    assert is_legal(s, arranged, seat=1)
    from games.engine import Action

    assert str(Action.parse(arranged)) == "knock:KD|4S,5S,6S,7S|7C,7D,7H"
    s2 = play(s, arranged)
    assert s2.phase is Phase.LAYOFF and legal(s2)[0].startswith("layoff:8S>")
    s2 = play(s2, "accept_layoffs")
    hr = s2.hand_results[-1]
    assert hr.layoffs[0][0] == "8S" and hr.knocker_melds == (
        ("4S", "5S", "6S", "7S"),
        ("7C", "7D", "7H"),
    )
    assert_unchanged_on_error(s, "knock:KD|7C,7D,7H,7S|4S,5S,6S,7S", IllegalMeldError)
    assert_unchanged_on_error(s, "knock:KD|7C,7D,7H", KnockTooHighError)  # 28 deadwood shown


# ------------------------------------------------------------------ gin is decided by the cards

GIN_TEN = H("AS 2S 3S 4S 5H 6H 7H 8C 8D 8H")  # every card melds: gin once KD is thrown
LOW_DEFENDER = H("9C 9D 9S 2D 3D 4D TS JS QS AC")  # deadwood 1 (AC): would undercut a knock


@pytest.mark.parametrize(
    "shown",
    [
        "knock:KD|AS,2S,3S|5H,6H,7H|8C,8D,8H",  # 4S shown as deadwood (4, under the limit)
        "knock:KD|5H,6H,7H|8C,8D,8H",  # 10 shown as deadwood, above the limit
    ],
)
def test_knock_showing_another_arrangement_of_a_gin_hand_is_gin(shown):
    deal = knock_deal(defender=LOW_DEFENDER, knocker=GIN_TEN, upcard="KC")
    s = play(game(deals=[deal]), "pass", "pass", "draw:stock")
    assert is_legal(s, shown, seat=1)
    after = play(s, shown)
    hr = after.hand_results[-1]
    assert hr.outcome is HandOutcome.GIN and hr.winner == 1
    assert hr.knocker_deadwood == 0 and hr.knocker_deadwood_cards == ()
    assert sorted(c for m in hr.knocker_melds for c in m) == sorted(GIN_TEN)
    assert hr.layoffs == ()  # a gin hand takes no lay-offs
    assert hr.points == get_mode("classic").gin_bonus + 1  # never undercut
    # the same hand knocked with a real deadwood card is still a knock (and undercut)
    real_deadwood = [("2C" if c == "4S" else c) for c in GIN_TEN]
    deal2 = knock_deal(defender=LOW_DEFENDER, knocker=real_deadwood, upcard="KC")
    s2 = play(game(deals=[deal2]), "pass", "pass", "draw:stock", "knock:KD")
    assert s2.hand_results[-1].outcome is HandOutcome.UNDERCUT


def test_plain_knock_of_a_gin_hand_is_refused_with_a_hint():
    deal = knock_deal(defender=LOW_DEFENDER, knocker=GIN_TEN, upcard="KC")
    s = play(game(deals=[deal]), "pass", "pass", "draw:stock")
    assert "gin:KD" in legal(s) and "knock:KD" not in legal(s)
    assert_unchanged_on_error(s, "knock:KD", IllegalActionError)


# ------------------------------------------------------------------ settings


@pytest.mark.parametrize(("mode", "setting", "size", "most"), [
    ("classic", "hand_size", 26, 25), ("classic", "hand_size", 0, 25),
    ("hollywood", "hand_size", 30, 25), ("rummy", "hand_size_two", 26, 25),
    ("rummy", "hand_size_more", 13, 12), ("rummy", "hand_size_more", 0, 12),
])
def test_a_hand_must_fit_the_deck_for_every_player_count(mode, setting, size, most):
    """Every player count gets a card at least and leaves the upcard (a hand of 26 failed at
    the deal with an IndexError)."""
    from games.engine import EngineError, new_game

    with pytest.raises(EngineError, match=f"from 1 to {most}"):
        get_mode(mode, **{setting: size})
    largest = get_mode(mode, **{setting: most})
    for n in range(largest.min_players, largest.max_players + 1):
        s = new_game(largest, 1, n)
        assert all(len(h) == largest.hand_size_for(n) for h in s.hands)
