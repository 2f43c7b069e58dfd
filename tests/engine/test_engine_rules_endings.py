"""One named test per rule of shared/RULES.md, on hand-built deals: a drawn hand and the
next deal, the game's end and its bonuses, the variants (straight, Oklahoma, Hollywood),
turn order and errors."""


from games.engine import (
    CardNotInHandError,
    HandOutcome,
    KnockTooHighError,
    NotYourTurnError,
    Phase,
    WrongPhaseError,
    get_mode,
    legal_actions,
    new_game,
)
from tests.support.engine import (
    H,
    assert_unchanged_on_error,
    game,
    knock_deal,
    legal,
    play,
)

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
    assert s.to_act == 1, "the deal leaves the knocker (seat 1) to draw the third-last card"
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
