"""The analyser (games/bots/analysis): rankings where the best move is known, judgements
only from the seat's view, determinism, the JSON form, forced decisions, progress."""

from __future__ import annotations

import pytest

from games.bots import get_bot
from games.bots.analysis import (
    ANALYSER_VERSION,
    JUDGEMENTS,
    GameAnalysis,
    analyse,
    decision_count,
    judge_position,
)
from games.bots.analysis.report import THRESHOLDS, decision_accuracy, judge
from games.bots.match import play_game
from games.engine import Deal, GameRecord, RecordError, apply, new_game
from games.engine.record import Move

SUITS = "SHDC"


def _state(hands, upcard, stock, moves, mode="classic"):
    """A two-player game dealt exactly (dealer 0: seat 1 is offered the upcard first)."""
    state = new_game(mode, seed=3, dealer=0, deals=[Deal.make(hands, upcard, stock)])
    # (cards not named in ``stock`` follow in a seeded order)
    for seat, action in moves:
        state = apply(state, action, seat=seat).state
    return state


def _record(hands, upcard, stock, moves, mode="classic"):
    return GameRecord.from_state(_state(hands, upcard, stock, moves, mode), players=["a", "b"])


def _rank(options):
    return [o.action for o in options]


# Seat 1's hand: a set of sevens and A-2-3 of spades, four loose cards; it takes the upcard.
MELDED = ["7H", "7D", "7C", "AS", "2S", "3S", "KD", "QC", "9H", "5D"]
OTHER = ["2H", "4C", "6H", "8S", "TD", "JH", "3C", "5C", "9C", "KH"]


def test_breaking_a_made_meld_ranks_below_every_deadwood_discard():
    state = _state([OTHER, MELDED], "JS", [], [(1, "take_upcard")])
    kind, options, _loss, _j = judge_position(state, 1, "discard:KD", seed=5)
    assert kind == "discard"
    ranked = _rank(options)
    loose = ["discard:KD", "discard:QC", "discard:9H", "discard:5D"]
    breaking = ["discard:7H", "discard:7D", "discard:7C", "discard:AS", "discard:2S",
                "discard:3S"]
    # The best option throws a loose card; every meld-breaking discard ranks below it, and
    # played (valued on the full sample count) it loses at least an inaccuracy's worth.
    assert ranked[0] in loose, ranked
    assert all(ranked.index(b) > 0 for b in breaking), ranked
    for b in ("discard:7C", "discard:2S"):
        _k, _o, loss, judgement = judge_position(state, 1, b, seed=5)
        assert loss >= THRESHOLDS[1], (b, loss)
        assert judgement in JUDGEMENTS[2:]


def test_gin_ranks_first_and_is_judged_best():
    # Seat 1 takes the upcard 4S: A-2-3-4 of spades, three sevens, three kings: gin by 9H.
    gin_hand = ["AS", "2S", "3S", "7H", "7D", "7C", "KD", "KC", "KH", "9H"]
    seat0 = ["2H", "4C", "6H", "8S", "TD", "JH", "3C", "5C", "9C", "QD"]
    state = _state([seat0, gin_hand], "4S", [], [(1, "take_upcard")])
    kind, options, loss, judgement = judge_position(state, 1, "gin:9H", seed=2)
    assert kind == "knock"
    assert options[0].action == "gin:9H"
    assert loss == 0.0 and judgement == "best"
    _k, options2, loss2, judgement2 = judge_position(state, 1, "discard:9H", seed=2)
    assert options2[0].action == "gin:9H"
    # Playing on with a gin hand gives the opponent a turn: a mistake at least.
    assert loss2 >= THRESHOLDS[2] and judgement2 in JUDGEMENTS[3:]


def test_feeding_the_opponents_known_set_ranks_below_a_safe_discard():
    # Seat 1 takes 8H (the upcard) and later 8D from the pile: both are known to seat 0, who
    # holds 8C. Throwing 8C completes their set; throwing the loose 7S (lower, so deadwood
    # alone would keep it) does not.
    seat0 = ["8C", "8D", "7S", "KD", "KC", "KH", "2D", "3D", "4D", "JC"]
    seat1 = ["5S", "2H", "9S", "TS", "JH", "3C", "5C", "9C", "AH", "QD"]
    moves = [
        (1, "take_upcard"), (1, "discard:5S"),
        (0, "draw:stock"), (0, "discard:8D"),  # seat 0 draws AC and throws 8D ...
        (1, "draw:discard"), (1, "discard:AH"),  # ... which seat 1 takes: 8H 8D known
        (0, "draw:stock"),  # 6H: seat 0 now chooses what to throw
    ]
    state = _state([seat0, seat1], "8H", ["AC", "6H"], moves)
    kind, options, _l, _j = judge_position(state, 0, "discard:8C", seed=7)
    ranked = _rank(options)
    assert ranked.index("discard:7S") < ranked.index("discard:8C"), ranked


def test_taking_a_melding_upcard_beats_passing_and_a_useless_one_does_not():
    # 8S melds with 8C 8D (set) in seat 1's hand; the upcard KS would be a loose ten.
    hand = ["8C", "8D", "2H", "3C", "5D", "6S", "9H", "JC", "4D", "AH"]
    seat0 = ["2S", "4C", "6H", "8H", "TD", "JH", "3S", "5C", "9C", "KH"]

    def gain_of_taking(upcard):
        """Taking's value less passing's, averaged over four seeds: one seed's samples judge
        a close call (the useless card) either way."""
        gains = []
        for seed in range(3, 7):
            state = _state([seat0, hand], upcard, [], [])
            _k, options, _l, _j = judge_position(state, 1, "pass", seed=seed)
            value = {o.action: o.value for o in options}
            gains.append(value["take_upcard"] - value["pass"])
        return sum(gains) / len(gains)

    melding, useless = gain_of_taking("8S"), gain_of_taking("KS")
    assert melding > THRESHOLDS[1], melding  # passing it is at least an inaccuracy
    assert melding > useless + THRESHOLDS[1], (melding, useless)


def test_laying_off_beats_declining_to_exactly():
    # Seat 1 holds 4S 5S that lay off on seat 0's A-2-3 of spades after seat 0 knocks.
    seat0 = ["AS", "2S", "3S", "7H", "7D", "7C", "KD", "KC", "KH", "2D"]
    seat1 = ["4S", "5S", "9H", "JD", "QC", "6C", "8D", "TH", "3H", "QS"]
    pool = [c for r in "A23456789TJQK" for c in (r + s for s in SUITS)
            if c not in seat0 + seat1 + ["AD"]]
    state = _state([seat0, seat1], "AD", pool, [(1, "pass"), (0, "take_upcard"),
                                               (0, "knock:2D")])
    kind, options, loss, judgement = judge_position(state, 1, "done", seed=1)
    assert kind == "layoff"
    values = {o.action: o.value for o in options}
    assert all(o.spread == 0.0 for o in options)  # nothing hidden: exact
    assert values["accept_layoffs"] > values["done"]
    assert values["accept_layoffs"] - values["done"] == pytest.approx(9.0)  # 4 + 5 laid off
    assert loss == pytest.approx(9.0) and judgement == judge(9.0)


def test_changing_the_hidden_cards_changes_no_judgement():
    """Seat 0's judgements read only its view: swapping cards between the opponent's hand and
    the unseen part of the stock, and reordering the stock below what is drawn, changes
    nothing for seat 0."""
    seat0 = ["8C", "7S", "KD", "KC", "KH", "2D", "3D", "4D", "JC", "QD"]
    seat1 = ["8D", "2H", "5S", "9S", "TS", "JH", "3C", "5C", "9C", "AH"]
    pool = [c for r in "A23456789TJQK" for c in (r + s for s in SUITS)
            if c not in seat0 + seat1 + ["8H"]]
    top = ["AC", "6H", "2C", "QH", "4S", "6C"]
    deep = [c for c in pool if c not in top]
    moves = [(1, "pass"), (0, "pass"), (1, "draw:stock"), (1, "discard:AH"),
             (0, "draw:stock"), (0, "discard:6H"), (1, "draw:stock"), (1, "discard:2C"),
             (0, "draw:stock"), (0, "discard:QH")]
    rec_a = _record([seat0, seat1], "8H", top + deep, moves)
    # Swap three cards seat 1 never shows with three deep stock cards; reverse the deep stock.
    swap = {"9S": deep[0], "TS": deep[1], "JH": deep[2]}
    seat1_b = [swap.get(c, c) for c in seat1]
    deep_b = [c for c in deep[3:]][::-1] + ["9S", "TS", "JH"]
    rec_b = _record([seat0, seat1_b], "8H", top + deep_b, moves)
    assert rec_a.deals != rec_b.deals
    a = analyse(rec_a, seed=4)
    b = analyse(rec_b, seed=4)
    mine_a = [d for d in a.decisions if d.seat == 0]
    mine_b = [d for d in b.decisions if d.seat == 0]
    assert mine_a == mine_b
    assert any(d.judgement != "forced" for d in mine_a)


def _bot_game(mode="classic", players=2, target=25, seed=9):
    bots = [get_bot("hard", seed=1), get_bot("medium", seed=2), get_bot("easy", seed=3)]
    settings = {"targets": [[players, target]]} if mode == "rummy" else {"target": target}
    state = play_game(mode, bots[:players], seed, settings=settings)
    return GameRecord.from_state(state, players=["hard", "medium", "easy"][:players])


@pytest.fixture(scope="module")
def short_game():
    return _bot_game()


def test_same_record_same_seed_same_analysis_and_json_round_trip(short_game):
    a = analyse(short_game, seed=11)
    b = analyse(GameRecord.from_json(short_game.to_json()), seed=11)
    assert a == b
    assert a.version == ANALYSER_VERSION and a.mode == "classic"
    assert GameAnalysis.from_json(a.to_json()) == a


def test_every_move_is_a_decision_and_forced_ones_are_not_judged(short_game):
    seen = []
    a = analyse(short_game, seed=1, progress=lambda done, total: seen.append((done, total)))
    total = decision_count(short_game)
    assert len(a.decisions) == total == len(short_game.moves)
    assert seen[-1] == (total, total) and len(seen) == total
    assert [d.index for d in a.decisions] == list(range(total))
    for d, move in zip(a.decisions, short_game.moves, strict=True):
        assert d.seat == move.seat and d.played == move.action.split("|")[0]
        assert d.loss >= 0
        assert d.options[0].action == d.best
        values = [o.value for o in d.options]
        assert values == sorted(values, reverse=True)
        if d.judgement == "forced":
            assert len(d.options) == 1 and d.loss == 0
        else:
            assert d.judgement in JUDGEMENTS and len(d.options) > 1
            played = next(o for o in d.options if o.action == d.played)
            assert d.loss == pytest.approx(d.options[0].value - played.value, abs=1e-3)
    for s in a.summaries:
        mine = [d for d in a.decisions if d.seat == s.seat and d.judgement != "forced"]
        assert s.decisions == len(mine) == sum(s.counts.values())
        assert 0 <= s.accuracy <= 100
        assert s.total_loss == pytest.approx(sum(d.loss for d in mine), abs=1e-2)
    assert {d.kind for d in a.decisions} >= {"upcard", "draw", "discard"}


def test_moves_the_site_played_on_a_timeout_are_not_judged(short_game):
    """A move played for a player whose time ran out is not their decision: reported as
    "timeout", no loss, out of their accuracy (bob, who never moved, read 99.4 %)."""
    judged = analyse(short_game, seed=1)
    site = frozenset(d.index for d in judged.decisions
                     if d.seat == 0 and d.judgement != "forced")
    assert site
    a = analyse(short_game, seed=1, timed_out=site)
    for d, before in zip(a.decisions, judged.decisions, strict=True):
        if d.index in site:
            assert (d.judgement, d.loss, d.played, d.best) == ("timeout", 0.0, before.played,
                                                                before.played)
            assert d.kind == before.kind
        else:
            assert d == before
    assert a.summaries[0].decisions == judged.summaries[0].decisions - len(site) == 0
    assert a.summaries[0].accuracy == 100.0 and a.summaries[0].total_loss == 0
    assert a.summaries[1] == judged.summaries[1]
    assert GameAnalysis.from_json(a.to_json()) == a


def test_moves_the_computer_played_for_a_player_who_left_are_not_judged(short_game):
    """In a game of three or four that went on without a player who left, the computer's
    moves in their seat are not their decisions: "played_on", no loss, out of their
    accuracy."""
    judged = analyse(short_game, seed=1)
    later = frozenset(d.index for d in judged.decisions
                      if d.seat == 0 and d.judgement != "forced" and d.index >= 4)
    assert later
    a = analyse(short_game, seed=1, played_on=later)
    for d, before in zip(a.decisions, judged.decisions, strict=True):
        if d.index in later:
            assert (d.judgement, d.loss, d.best) == ("played_on", 0.0, before.played)
        else:
            assert d == before
    mine = [d for d in judged.decisions if d.seat == 0 and d.judgement != "forced"]
    assert a.summaries[0].decisions == len(mine) - len(later)
    assert GameAnalysis.from_json(a.to_json()) == a


def test_rummy_three_players_is_judged():
    rec = _bot_game("rummy", players=3, target=20, seed=4)
    a = analyse(rec, seed=2)
    assert len(a.summaries) == 3
    kinds = {d.kind for d in a.decisions if d.judgement != "forced"}
    assert {"draw", "discard"} <= kinds
    assert any(d.kind in ("meld", "layoff") for d in a.decisions)


def test_judgements_and_accuracy_follow_the_thresholds():
    assert judge(0.0) == "best"
    assert [judge(t) for t in THRESHOLDS] == list(JUDGEMENTS[1:])
    assert judge(THRESHOLDS[-1] + 50) == "blunder"
    assert decision_accuracy(0.0) == 100.0
    assert decision_accuracy(1.0) > decision_accuracy(5.0) > decision_accuracy(19.0) > 0
    assert decision_accuracy(20.0) == decision_accuracy(35.0) == 0.0
    # linear below the scale: a seat's accuracy is 100 - 5 x its average loss
    assert decision_accuracy(4.0) == pytest.approx(80.0)


def test_a_record_that_does_not_replay_is_refused(short_game):
    bad = GameRecord.from_json(short_game.to_json())
    bad.moves = bad.moves[:3] + [Move(bad.moves[3].seat, "discard:ZZ")] + bad.moves[4:]
    with pytest.raises(RecordError):
        analyse(bad)


@pytest.mark.parametrize("mode", ["straight", "oklahoma", "hollywood"])
def test_every_gin_mode_is_analysed(mode):
    rec = _bot_game(mode, target=10, seed=6)
    a = analyse(rec, seed=3)
    judged = [d for d in a.decisions if d.judgement != "forced"]
    assert judged and len(a.decisions) == len(rec.moves)
    assert {d.kind for d in judged} & {"discard", "knock"}
    for d in judged:
        assert {o.action for o in d.options} >= {d.played, d.best}
