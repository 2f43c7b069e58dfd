"""One named test per rule of shared/RULES.md for basic rummy, on hand-built deals."""


from games.engine import (
    CannotDiscardTakenCardError,
    GameState,
    HandOutcome,
    MustGoOutError,
    Phase,
    apply,
    new_game,
)
from tests.support.engine import (
    H,
    assert_unchanged_on_error,
    game,
    legal,
    play,
)

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
