"""The stored record of a game that ended by a forfeit (timeouts, resignation, abandonment):
the score sheet up to the forfeit and who forfeited; the seed is public once it is over."""
from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from games import engine as E
from games import records, selectors, services
from games.models import Ending, Game, Seat, Table
from tests.support.tables import start_table, state_of

pytestmark = pytest.mark.django_db(transaction=True)


def _greedy(state) -> str:
    """Gin or knock when possible, else draw from the stock and throw the worst card."""
    legal = [str(a) for a in E.legal_actions(state)]
    for prefix in ("big_gin", "gin:", "knock:", "accept_layoffs", "pass", "draw:stock"):
        for a in legal:
            if a.startswith(prefix):
                return a
    hand = state.hands[state.to_act]
    discards = [a for a in legal if a.startswith("discard:")]
    return min(discards, key=lambda a: E.best_melds(
        [c for c in hand if c.text != a[8:]]).deadwood)


def _play_until_a_hand_is_won(table, users):
    for _ in range(2000):
        state = state_of(table.pk)
        if any(h.winner is not None for h in state.hand_results):
            return state
        t = Table.objects.get(pk=table.pk)
        services.table_act(table_id=t.pk, user=users[state.to_act], action=_greedy(state),
                           expected_version=t.version)
    raise AssertionError("no hand was won")


def test_a_timeout_forfeit_keeps_the_score_sheet_and_names_who_forfeited(rooms, two_players):
    alice, bob = two_players
    users = {0: alice, 1: bob}
    table = start_table(rooms["classic"], [alice, bob])
    before = _play_until_a_hand_is_won(table, users)
    hands = len(before.hand_results)
    scores = list(before.scores)
    assert any(scores)
    loser = before.to_act
    Seat.objects.filter(table=table).update(timeouts=2)
    Table.objects.filter(pk=table.pk).update(turn_deadline=timezone.now() - timedelta(seconds=5))
    assert services.table_timeout(table_id=table.pk) is True

    game = Game.objects.get(table=table)
    assert game.ending == Ending.TIMEOUT
    rec = records.record_json(game)
    name = users[loser].public_name
    assert rec["forfeit"] == {
        "seat": loser, "name": name, "username": users[loser].username, "bot_level": None,
        "reason": "timeout", "after_hands": hands,
    }
    assert rec["result"] is None  # not ended by the rules
    assert rec["totals"] == scores
    sheet = rec["score_sheet"]
    assert sheet["hand_points"] == scores
    assert [row["hand"] for row in sheet["hands"]] == list(range(1, hands + 1))
    won = [row for row in sheet["hands"] if row["winner"] is not None]
    assert won and sum(r["points"] for r in won) == sum(scores)
    assert [c["points"] for c in sheet["columns"]] == [scores]
    assert len(rec["engine"]["hand_results"]) == hands
    text = records.record_text(game)
    word = "hand" if hands == 1 else "hands"  # (it read "1 hand(s)")
    assert f"# {name} forfeited (timeout) after {hands} {word}\n" in text
    assert "# Score at the forfeit: " + " ".join(map(str, scores)) in text

    # the final table, for the players and for anyone reloading it, shows the seed
    snap = selectors.table_snapshot(table.pk, alice, 0)
    assert snap["view"]["seed"] == table.seed
    assert snap["table"]["finish"]["seed"] == table.seed


def test_a_resignation_names_who_resigned_and_a_normal_end_no_one(rooms, two_players):
    alice, bob = two_players
    table = start_table(rooms["classic"], [alice, bob])
    services.table_resign(table_id=table.pk, user=bob)
    rec = records.record_json(Game.objects.get(table=table))
    assert rec["forfeit"]["seat"] == 1 and rec["forfeit"]["reason"] == "resignation"
    assert rec["forfeit"]["after_hands"] == 0 and rec["score_sheet"]["hands"] == []
    assert rec["totals"] == [0, 0]

    table2 = start_table(rooms["classic"], [alice, bob])
    services.game_finish(table_id=table2.pk, ending=Ending.NORMAL)
    assert records.record_json(Game.objects.get(table=table2))["forfeit"] is None
