"""Live play through the services: timeouts and forfeits, resigning and claiming (the
finishing path), rematches, chat limits, the computers' names and presence."""
from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from games import engine as E
from games import services, signals
from games.exceptions import (
    CannotClaim,
    ChatControls,
    ChatEmpty,
    ChatTooLong,
    NotPlaying,
    RateLimited,
)
from games.models import ActionSource, Ending, Game, Seat, Table, TableAction, TableStatus
from tests.support.tables import play_one, start_table, state_of

pytestmark = pytest.mark.django_db(transaction=True)


def _expire(table_id):
    Table.objects.filter(pk=table_id).update(turn_deadline=timezone.now() - timedelta(seconds=5))


def test_timeout_plays_a_safe_move_exactly_once(rooms, two_players):
    alice, bob = two_players
    table = start_table(rooms["classic"], [alice, bob])
    state = state_of(table.pk)
    seat = state.to_act
    # Not due yet: nothing happens (an eager or early delivery is harmless).
    assert services.table_timeout(table_id=table.pk) is False
    _expire(table.pk)
    assert services.table_timeout(table_id=table.pk) is True
    assert services.table_timeout(table_id=table.pk) is False  # delivered twice
    moves = list(TableAction.objects.filter(table=table))
    assert moves and all(m.source == ActionSource.TIMEOUT and m.seat == seat for m in moves)
    assert moves[0].action == "pass"  # upcard offer: the safe move is to pass
    assert Seat.objects.get(table=table, index=seat).timeouts == 1
    after = Table.objects.get(pk=table.pk)
    assert after.version == table.version + len(moves)
    # The sweep finds nothing more to do.
    assert services.tables_sweep()["timeouts"] == 0


def test_timeout_in_a_turn_draws_and_discards(rooms, two_players):
    alice, bob = two_players
    users = {0: alice, 1: bob}
    table = start_table(rooms["classic"], [alice, bob])
    while state_of(table.pk).phase is not E.Phase.DRAW:
        play_one(table.pk, users)
    state = state_of(table.pk)
    seat = state.to_act
    table.refresh_from_db()
    _expire(table.pk)
    assert services.tables_sweep()["timeouts"] == 1
    moves = [m.action for m in TableAction.objects.filter(table=table, source="timeout")]
    assert moves[0] == "draw:stock" and moves[1].startswith("discard:")
    assert state_of(table.pk).to_act != seat


def test_three_timeouts_forfeit(rooms, two_players):
    alice, bob = two_players
    table = start_table(rooms["classic"], [alice, bob])
    Seat.objects.filter(table=table).update(timeouts=2)
    _expire(table.pk)
    table.refresh_from_db()
    loser = state_of(table.pk).to_act
    assert services.table_timeout(table_id=table.pk) is True
    game = Game.objects.get(table=table)
    assert game.ending == Ending.TIMEOUT and game.loser_seat == loser
    assert game.winner_seat == 1 - loser
    assert game.players.get(seat=1 - loser).won


def test_resign_goes_through_the_finish_path(rooms, two_players):
    alice, bob = two_players
    table = start_table(rooms["classic"], [alice, bob])
    got = []
    handler = lambda sender, game_id, table_id, **kw: got.append((game_id, table_id))  # noqa: E731
    signals.game_finished.connect(handler)
    try:
        services.table_resign(table_id=table.pk, user=bob)
    finally:
        signals.game_finished.disconnect(handler)
    game = Game.objects.get(table=table)
    assert got == [(game.pk, table.pk)]
    assert game.ending == Ending.RESIGNATION and game.loser_seat == 1 and game.winner_seat == 0
    assert Table.objects.get(pk=table.pk).status == TableStatus.FINISHED
    with pytest.raises(NotPlaying):
        services.table_resign(table_id=table.pk, user=alice)


def test_claim_after_the_grace_period(rooms, two_players):
    alice, bob = two_players
    table = start_table(rooms["classic"], [alice, bob])
    services.seat_presence(table_id=table.pk, user=bob, connected=False)
    with pytest.raises(CannotClaim):
        services.table_claim(table_id=table.pk, user=alice)
    Seat.objects.filter(table=table, user=bob).update(
        last_seen=timezone.now() - timedelta(seconds=61))
    services.table_claim(table_id=table.pk, user=alice)
    game = Game.objects.get(table=table)
    assert game.ending == Ending.ABANDONMENT and game.loser_seat == 1


def test_rematch_with_a_bot_starts_a_new_table(rooms, make_user):
    user = make_user()
    table = services.table_create(user=user, room=rooms["classic"], seconds_per_turn=0,
                                  bot_level=1)
    services.table_resign(table_id=table.pk, user=user)
    services.table_rematch(table_id=table.pk, user=user)
    table.refresh_from_db()
    new = table.rematch_table
    assert new is not None and new.status == TableStatus.PLAYING
    assert new.seats.get(user=user).index == 1


def test_every_new_deal_has_a_seed_exact_in_javascript(rooms, make_user, two_players,
                                                      monkeypatch):
    """Seeds are drawn below 2**53 (the largest the draw can give is asked for here): a
    browser read a 62-bit seed 604722250469829277 as 604722250469829200."""
    import secrets

    monkeypatch.setattr(secrets, "randbits", lambda bits: 2 ** bits - 1)
    user = make_user()
    table = services.table_create(user=user, room=rooms["classic"], seconds_per_turn=0,
                                  bot_level=1)
    services.table_resign(table_id=table.pk, user=user)
    services.table_rematch(table_id=table.pk, user=user)
    paired = services.table_start_pair(mode="classic", players=tuple(two_players))
    tables = [Table.objects.get(pk=table.pk), Table.objects.get(pk=table.pk).rematch_table,
              Table.objects.get(pk=paired.pk)]
    assert [t.seed for t in tables] == [2 ** 53 - 1] * 3
    assert float(2 ** 53 - 1) == 2 ** 53 - 1  # exact as a JavaScript number


def test_a_rematch_offer_lapses_when_its_player_has_left(rooms, two_players):
    """An offer was kept for good: one player offered and went to the lobby, the other
    accepted 70 s later, and the new game started with the absent player's clock running
    (lost on time). An offer now stands while its player is at the table."""
    alice, bob = two_players
    table = start_table(rooms["classic"], [alice, bob])
    for u in (alice, bob):
        services.seat_presence(table_id=table.pk, user=u, connected=True)
    services.table_resign(table_id=table.pk, user=bob)
    index = {s.user_id: s.index for s in Seat.objects.filter(table=table)}
    services.table_rematch(table_id=table.pk, user=alice)
    services.seat_presence(table_id=table.pk, user=alice, connected=False)  # to the lobby
    t = services.table_rematch(table_id=table.pk, user=bob)
    assert t.rematch_table_id is None
    assert t.rematch_offers == [index[bob.pk]]  # bob's offer now, waiting for alice
    # an offer whose player is there still, but silent for 30 s (a socket dead unnoticed)
    services.seat_presence(table_id=table.pk, user=alice, connected=True)
    Seat.objects.filter(table=table, user=bob).update(
        last_seen=timezone.now() - timedelta(seconds=31))
    t = services.table_rematch(table_id=table.pk, user=alice)
    assert t.rematch_table_id is None and t.rematch_offers == [index[alice.pk]]
    # both there: the rematch starts
    services.seat_presence(table_id=table.pk, user=bob, connected=True)
    t = services.table_rematch(table_id=table.pk, user=bob)
    assert t.rematch_table is not None and t.rematch_table.status == TableStatus.PLAYING


def test_chat_limits(rooms, two_players):
    alice, bob = two_players
    table = services.table_create(user=alice, room=rooms["classic"])
    msg = services.chat_post(table_id=table.pk, user=alice, text="  <b>hi</b>  there ")
    assert msg.text == "<b>hi</b> there"  # stored raw; escaped when rendered
    with pytest.raises(ChatEmpty):
        services.chat_post(table_id=table.pk, user=alice, text="   ")
    with pytest.raises(ChatEmpty):  # invisible alone: it showed as "alice:" and nothing
        services.chat_post(table_id=table.pk, user=alice, text="\u200b\u200b \u2060")
    # an emoji sequence holds joiners, and shows
    assert services.chat_post(table_id=table.pk, user=bob, text="\U0001F469\u200d\U0001F4BB").text
    with pytest.raises(ChatTooLong):
        services.chat_post(table_id=table.pk, user=alice, text="x" * 301)
    for text in ("bell\x07", "see \u202egpj.exe"):
        with pytest.raises(ChatControls):
            services.chat_post(table_id=table.pk, user=alice, text=text)
    for _ in range(4):
        services.chat_post(table_id=table.pk, user=alice, text="spam")
    with pytest.raises(RateLimited):
        services.chat_post(table_id=table.pk, user=alice, text="one too many")
    services.chat_post(table_id=table.pk, user=bob, text="others may still talk")


def test_a_chat_lines_number_tells_nothing_of_the_lines_before_it(rooms, two_players):
    """A line went out with its row's id: a public table's chatter counted the lines said at
    private tables (a privacy audit). Its number is the same in the frame and the snapshot,
    and distinct at a table."""
    from games import frames, selectors

    alice, bob = two_players
    secret = services.table_create(user=alice, room=rooms["classic"], private=True)
    for text in ("one", "two"):
        services.chat_post(table_id=secret.pk, user=alice, text=text)
    public = services.table_create(user=bob, room=rooms["classic"])
    lines = [services.chat_post(table_id=public.pk, user=bob, text=t) for t in ("a", "b")]
    sent = [frames.chat_data(m, {})["id"] for m in lines]
    assert not {m.pk for m in lines} & set(sent)
    assert len(set(sent)) == 2 and all(0 < n < 2 ** 53 for n in sent)
    assert [m["id"] for m in selectors.recent_chat(public)] == sent


# ------------------------------------------------------------------------- names, presence


def _names(table_id):
    from games import frames

    return [s["name"] for s in frames.seats_data(
        list(Seat.objects.filter(table_id=table_id).select_related("user")))]


def test_computers_of_the_same_level_get_distinct_names(rooms, make_user):
    user = make_user("ann")
    table = services.play_computer(user=user, mode="rummy", level=2, seat_count=4)
    names = _names(table.pk)
    assert names[1:] == ["Computer (Medium)", "Computer 2 (Medium)", "Computer 3 (Medium)"]
    services.table_resign(table_id=table.pk, user=user)
    game = Game.objects.get(table=table)
    stored = [p.name for p in game.players.order_by("seat")]
    assert stored[1:] == names[1:]
    assert [p["name"] for p in game.record["players"]][1:] == names[1:]


def test_mixed_levels_number_only_the_repeated_level(rooms, make_user):
    user = make_user("ann")
    table = services.table_create(user=user, room=rooms["rummy-3-4"], seat_count=4)
    services.table_add_bot(table_id=table.pk, user=user, seat=1, level=1)
    services.table_add_bot(table_id=table.pk, user=user, seat=2, level=3)
    assert _names(table.pk)[1:] == ["Computer (Easy)", "Computer (Hard)", ""]
    services.table_add_bot(table_id=table.pk, user=user, seat=3, level=1)
    assert _names(table.pk)[1:] == ["Computer (Easy)", "Computer (Hard)", "Computer 2 (Easy)"]
    # The room's table list uses the same names.
    from games import selectors

    row = next(r for r in selectors.room_tables(rooms["rummy-3-4"])["playing"]
               if r["id"] == table.pk)
    assert [p["name"] for p in row["players"]][1:] == _names(table.pk)[1:]


def test_heartbeat_publishes_only_when_a_seat_comes_back(rooms, two_players, monkeypatch,
                                                        make_user):
    from games import broadcast

    sent = []
    monkeypatch.setattr(broadcast, "send_presence", lambda **kw: sent.append(kw))
    alice, bob = two_players
    table = start_table(rooms["classic"], [alice, bob])
    services.seat_presence(table_id=table.pk, user=bob, connected=False)
    sent.clear()
    assert services.seat_heartbeat(table_id=table.pk, user=bob) is True
    assert Seat.objects.get(table=table, user=bob).connected
    assert [s["connected"] for s in sent[0]["seats"]] == [False, True]
    # Already shown here: the heartbeat only refreshes last_seen, at most every 10 s.
    assert services.seat_heartbeat(table_id=table.pk, user=bob) is False
    Seat.objects.filter(table=table, user=bob).update(
        last_seen=timezone.now() - timedelta(seconds=20))
    assert services.seat_heartbeat(table_id=table.pk, user=bob) is False
    assert len(sent) == 1
    assert Seat.objects.get(table=table, user=bob).last_seen > timezone.now() - timedelta(
        seconds=5)
    # A seat shown as gone (no ping for longer than the grace period) comes back visibly.
    Seat.objects.filter(table=table, user=bob).update(
        last_seen=timezone.now() - timedelta(seconds=200))
    assert services.seat_heartbeat(table_id=table.pk, user=bob) is True
    assert len(sent) == 2 and sent[1]["seats"][1]["gone"] is False
    # Not seated, or not logged in: nothing.
    assert services.seat_heartbeat(table_id=table.pk, user=make_user("zed")) is False
    assert services.seat_heartbeat(table_id=table.pk, user=None) is False
    assert len(sent) == 2
