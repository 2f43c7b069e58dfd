"""One named test per rule of shared/RULES.md, on hand-built deals."""

import pytest

from games.engine import (
    CannotDiscardTakenCardError,
    CardNotInHandError,
    GameState,
    HandOutcome,
    IllegalActionError,
    InvalidLayoffError,
    KnockTooHighError,
    MustGoOutError,
    NotGinError,
    NotYourTurnError,
    Phase,
    WrongPhaseError,
    apply,
    get_mode,
    is_legal,
    legal_actions,
    new_game,
)
from tests.support.engine import H, game, knock_deal, play


def legal(state):
    return [str(a) for a in legal_actions(state)]


def meld_index(state, card):
    from games.engine import Card

    bit = Card(card).bit
    for i, (_, mm) in enumerate(state.table):
        if mm & bit:
            return i
    raise AssertionError(card)


def assert_unchanged_on_error(state, action, exc, seat=None):
    before = state.to_dict()
    with pytest.raises(exc):
        apply(state, action, seat=state.to_act if seat is None else seat)
    assert state.to_dict() == before
    assert not is_legal(state, action, seat=state.to_act if seat is None else seat)


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


# ------------------------------------------------------------------ drawn hand, dealing


def _draw_discard_until(s, stock_left):
    while len(s.stock) > stock_left + 1 and not s.hand_results:
        s = play(s, "draw:stock")
        s = play(s, f"discard:{s.hands[s.to_act][-1]}")
    return s


def test_drawn_hand_when_two_cards_left_after_discard():
    s = play(game(deals=[knock_deal()]), "pass", "pass")
    s = _draw_discard_until(s, 2)
    assert len(s.stock) == 3 and not s.hand_results
    s = play(s, "draw:stock")
    s = play(s, f"discard:{s.hands[s.to_act][-1]}")
    hr = s.hand_results[-1]
    assert hr.outcome is HandOutcome.DRAWN and hr.points == 0 and s.scores == [0, 0]
    assert s.hand_number == 2 and s.dealer == 0  # re-dealt by the same dealer


def test_player_drawing_the_card_that_leaves_two_may_still_knock():
    s = play(game(deals=[knock_deal()]), "pass", "pass")
    s = _draw_discard_until(s, 2)
    while s.to_act != 1:  # make sure the knocker (seat 1) draws the third-last card
        s = play(s, "draw:stock")
        s = play(s, f"discard:{s.hands[s.to_act][-1]}")
        s = play(s, "draw:stock")
        s = play(s, f"discard:{s.hands[s.to_act][-1]}")
    assert len(s.stock) >= 3
    s = _draw_discard_until(s, 2) if len(s.stock) > 3 else s
    if s.to_act != 1:
        pytest.skip("parity")
    s = play(s, "draw:stock")
    assert len(s.stock) == 2
    drawn = s.hands[1][-1]
    s = play(s, f"knock:{drawn}")
    assert s.hand_results[-1].outcome in (HandOutcome.KNOCK, HandOutcome.UNDERCUT)


def test_winner_of_hand_deals_next():
    s = play(game(deals=[knock_deal()]), "pass", "pass", "draw:stock", "knock:KD")
    assert s.dealer == 1 and s.hand_number == 2 and s.to_act == 0  # non-dealer is offered first


def test_first_dealer_chosen_from_seed():
    dealers = {new_game("classic", seed=i).dealer for i in range(20)}
    assert dealers == {0, 1}
    assert new_game("classic", seed=5).dealer == new_game("classic", seed=5).dealer


# ------------------------------------------------------------------ game end and bonuses


def test_game_bonus_line_bonus_and_shutout_doubling():
    s = play(game(deals=[knock_deal()], target=30), "pass", "pass", "draw:stock", "knock:KD")
    assert s.is_over and s.to_act is None and legal_actions(s) == []
    r = s.result
    col = r.columns[0]
    assert col.shutout and col.hand_points == (0, 35) and col.scored_points == (0, 70)
    assert col.game_bonus == (0, 100) and col.line_bonus == (0, 25)
    assert r.totals == (0, 195) and r.winner == 1 and r.margin == 195


def test_line_bonus_for_each_player_and_no_shutout_when_loser_won_a_hand():
    undercut = H("9C 9D 9S 2D 3D 4D TS JS QS AH")  # seat 0 undercuts: 27
    deals = [knock_deal(defender=undercut), knock_deal()]
    s = play(game(deals=deals, target=30), "pass", "pass", "draw:stock", "knock:KD")
    assert s.scores == [27, 0] and s.dealer == 0 and s.to_act == 1
    s = play(s, "pass", "pass", "draw:stock", "knock:KD")
    r = s.result
    assert r.columns[0].shutout is False
    assert r.columns[0].line_bonus == (25, 25)
    assert r.totals == (27 + 25, 35 + 100 + 25) and r.margin == 160 - 52


def test_no_shutout_when_a_hand_was_drawn():
    s = play(game(deals=[knock_deal(), knock_deal()], target=30), "pass", "pass")
    while s.hand_number == 1:
        s = play(s, "draw:stock")
        s = play(s, f"discard:{s.hands[s.to_act][-1]}")
    s = play(s, "pass", "pass", "draw:stock", "knock:KD")
    r = s.result
    assert r.columns[0].shutout is False and r.totals == (0, 35 + 100 + 25)


def test_bonuses_counted_once():
    s = play(game(deals=[knock_deal()], target=30), "pass", "pass", "draw:stock", "knock:KD")
    r = s.result
    assert sum(r.totals) == sum(c.totals[0] + c.totals[1] for c in r.columns)
    assert s.hand_results[-1].points == 35  # the hand's own points stay undoubled


# ------------------------------------------------------------------ straight / oklahoma / hollywood


def test_straight_gin_forbids_knocking():
    s = play(game("straight", deals=[knock_deal()]), "pass", "pass", "draw:stock")
    assert not [a for a in legal(s) if a.startswith("knock")]
    assert_unchanged_on_error(s, "knock:KD", KnockTooHighError)


def test_oklahoma_upcard_sets_knock_limit():
    assert get_mode("oklahoma").target == 150
    s = game("oklahoma", deals=[knock_deal(upcard="5D")])
    assert s.knock_limit == 5 and s.multiplier == 1
    s = game("oklahoma", deals=[knock_deal(upcard="2H")])
    s = play(s, "pass", "pass", "draw:stock")
    assert_unchanged_on_error(s, "knock:KD", KnockTooHighError)  # 3 deadwood > 2
    assert game("oklahoma", deals=[knock_deal(upcard="QD")]).knock_limit == 10


def test_oklahoma_ace_upcard_means_gin_only():
    s = game("oklahoma", deals=[knock_deal(upcard="AD")])
    assert s.knock_limit == 0
    s = play(s, "pass", "pass", "draw:stock")
    assert_unchanged_on_error(s, "knock:KD", KnockTooHighError)


def test_oklahoma_spade_upcard_doubles_every_score():
    s = game(
        "oklahoma", deals=[knock_deal(upcard="8S", defender=H("9C 9D 9H 2D 3D 4D QH JH 8C TC"))]
    )
    assert s.multiplier == 2
    s = play(s, "pass", "pass", "draw:stock", "knock:KD")
    hr = s.hand_results[-1]
    assert hr.base_points == 35 and hr.points == 70 and s.scores == [0, 70]


def _knock_hand(s, knocker=1):
    while s.phase is Phase.OFFER:
        s = play(s, "pass")
    h0 = s.hand_number
    while s.hand_number == h0 and not s.is_over:
        seat = s.to_act
        s = play(s, "draw:stock")
        card = s.hands[seat][-1]
        s = play(s, f"knock:{card}" if seat == knocker else f"discard:{card}")
        if s.is_over:
            break
    return s


def test_hollywood_three_columns():
    deal = knock_deal(stock=("KD", "QD"))
    s = game("hollywood", deals=[deal] * 4, target=60)
    s = _knock_hand(s)
    assert [c["points"] for c in s.columns] == [[0, 35], [0, 0], [0, 0]]
    s = _knock_hand(s)  # second win: games 1 and 2
    assert [c["points"] for c in s.columns] == [[0, 70], [0, 35], [0, 0]]
    assert s.columns[0]["over"] and not s.is_over
    s = _knock_hand(s)  # third win: games 2 and 3 (game 1 has ended and takes no more)
    assert [c["points"] for c in s.columns] == [[0, 70], [0, 70], [0, 35]]
    assert s.hand_results[-1].columns == (1, 2)
    s = _knock_hand(s)
    assert s.is_over
    r = s.result
    assert [c.totals for c in r.columns] == [(0, 140 + 100 + 50)] * 3
    assert r.totals == (0, 870)


# ------------------------------------------------------------------ turn order / errors


def test_not_your_turn_and_wrong_phase_and_card_not_in_hand():
    s = game(deals=[knock_deal()])
    assert_unchanged_on_error(s, "pass", NotYourTurnError, seat=0)
    assert_unchanged_on_error(s, "discard:AS", WrongPhaseError)
    s = play(s, "take_upcard")
    assert_unchanged_on_error(s, "discard:AH", CardNotInHandError)


# ------------------------------------------------------------------ basic rummy


def rummy(players=2, deals=(), dealer=0, **settings):
    return game("rummy", deals=deals, dealer=dealer, players=players, **settings)


R_SEAT1 = H("5H 6H 7H 8C 9C TC 2D 3D 4D KS")
R_SEAT0 = H("AC 3C 5S 7S 9S JH QS 2H 4S 6D")  # 1+3+5+7+9+10+10+2+4+6 = 57


def test_rummy_deal_sizes_and_player_left_of_dealer_starts():
    for n, size, stock in ((2, 10, 31), (3, 7, 30), (4, 7, 23)):
        s = new_game("rummy", seed=3, num_players=n, dealer=n - 1)
        assert [len(h) for h in s.hands] == [size] * n
        assert len(s.stock) == stock and len(s.discard) == 1
        assert s.to_act == 0 and s.phase is Phase.DRAW


def test_rummy_targets_by_player_count():
    assert [new_game("rummy", seed=1, num_players=n).target for n in (2, 3, 4)] == [100, 150, 200]


def test_rummy_going_out_with_last_card_face_down():
    s = rummy(deals=[((R_SEAT0, R_SEAT1), "QC", ("5D",))])
    s = play(s, "draw:stock", "meld:5H,6H,7H", "meld:8C,9C,TC", "meld:2D,3D,4D,5D")
    assert legal(s) == ["go_out:KS"]
    assert_unchanged_on_error(s, "discard:KS", MustGoOutError)
    s = play(s, "go_out:KS")
    hr = s.hand_results[-1]
    assert hr.outcome is HandOutcome.OUT and hr.winner == 1
    assert hr.going_rummy and hr.base_points == 57 and hr.points == 114
    assert s.dealer == 1  # the deal passes left


def test_rummy_going_out_by_melding_everything_without_discard():
    seat1 = H("5H 6H 7H 8C 9C TC 2D 3D 4D 5D")
    s = rummy(deals=[((R_SEAT0, seat1), "QC", ("AD",))])
    s = play(s, "draw:stock", "meld:5H,6H,7H", "meld:8C,9C,TC", "meld:AD,2D,3D,4D,5D")
    assert s.hand_results[-1].outcome is HandOutcome.OUT and s.hand_results[-1].knock_card is None


def test_rummy_no_going_rummy_after_melding_in_an_earlier_turn():
    s = rummy(deals=[((R_SEAT0, R_SEAT1), "QC", ("QD", "JD", "5D"))])
    s = play(s, "draw:stock", "meld:5H,6H,7H", "discard:QD")
    s = play(s, "draw:stock", "discard:JD")
    assert s.placed == [False, True]
    s = play(s, "draw:stock", "meld:8C,9C,TC", "meld:2D,3D,4D,5D", "go_out:KS")
    hr = s.hand_results[-1]
    assert not hr.going_rummy and hr.points == 57 + 11 - 11  # seat 0 discarded JD after drawing it


def test_rummy_lay_off_onto_any_meld_without_having_melded():
    s = rummy(deals=[((R_SEAT0, R_SEAT1), "QC", ("QD", "8H"))])
    s = play(s, "draw:stock", "meld:5H,6H,7H", "discard:QD")
    s = play(s, "draw:stock")  # seat 0 draws 8H
    assert "layoff:8H>0" in legal(s) and "layoff:4S>0" not in legal(s)
    s = play(s, "layoff:8H>0")
    assert s.placed_this_turn and [c.text for c in _table_cards(s, 0)] == ["5H", "6H", "7H", "8H"]


def _table_cards(s, i):
    from games.engine.cards import cards_of

    return cards_of(s.table[i][1])


def test_rummy_cannot_discard_card_taken_from_discard_pile():
    s = rummy(deals=[((R_SEAT0, R_SEAT1), "QC", ())])
    s = play(s, "draw:discard")
    assert_unchanged_on_error(s, "discard:QC", CannotDiscardTakenCardError)


def test_rummy_may_not_strand_the_taken_card():
    seat1 = H("5H 6H 7H 8C 9C TC KS KC KH 4H")
    s = rummy(deals=[((R_SEAT0, seat1), "5D", ())])
    s = play(s, "draw:discard", "meld:5H,6H,7H", "meld:8C,9C,TC", "meld:KC,KH,KS")
    # hand is 4H + 5D (taken): laying off 4H would leave only 5D, which cannot be discarded
    assert legal(s) == ["discard:4H"]
    assert_unchanged_on_error(s, "layoff:4H>0", MustGoOutError)
    s = play(s, "discard:4H")
    assert s.hands[1] == [s.known[1][0]] and s.to_act == 0


def test_rummy_reshuffle_once_then_stalemate_on_second_exhaustion():
    s = rummy(deals=[((R_SEAT0, R_SEAT1), "QC", ())])
    events_seen = []
    while not s.hand_results:
        s, ev = apply(s, "draw:stock")
        s, ev = apply(s, f"discard:{s.hands[s.to_act][-1]}")
        events_seen += [e.kind for e in ev]
        if "reshuffle" in events_seen and s.reshuffles == 1 and len(s.stock) == 31:
            assert len(s.discard) == 1
    assert events_seen.count("reshuffle") == 1
    hr = s.hand_results[-1]
    assert hr.outcome is HandOutcome.STALEMATE and hr.winner is None and s.scores == [0, 0]
    assert "second" in hr.reason and s.dealer == 1


def test_rummy_stalemate_when_nobody_can_ever_go_out():
    from games.engine.meld import Meld

    table = [
        "4C,4D,4S",
        "JC,JH,JS",
        "8C,8D,8H",
        "9D,TD,JD,QD,KD",
        "AH,2H,3H,4H,5H,6H,7H",
        "2C,2D,2S",
        "6S,7S,8S,9S,TS",
        "QC,QH,QS",
        "3C,3D,3S",
        "5C,5D,5S",
        "KC,KH,KS",
        "AC,AD,AS",
    ]
    d = rummy(deals=[((R_SEAT0, R_SEAT1), "QC", ())]).to_dict()
    d.update(
        table=[[Meld.parse(t).kind, Meld.parse(t).to_list()] for t in table],
        hands=[["6C", "9H"], ["7C", "TC"]],
        stock=["6D", "7D"],
        discard=["9C", "TH"],
        phase="play",
        turn=0,
        taken=None,
        known=[[], []],
    )
    s = GameState.from_dict(d)
    s = play(s, "discard:9H")
    hr = s.hand_results[-1]
    assert hr.outcome is HandOutcome.STALEMATE and "can ever go out" in hr.reason


def test_rummy_game_ends_at_target():
    s = rummy(deals=[((R_SEAT0, R_SEAT1), "QC", ("5D",))], targets=[[2, 100], [3, 150], [4, 200]])
    s = play(s, "draw:stock", "meld:5H,6H,7H", "meld:8C,9C,TC", "meld:2D,3D,4D,5D", "go_out:KS")
    assert s.is_over and s.result.winner == 1 and s.result.totals == (0, 114)


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
