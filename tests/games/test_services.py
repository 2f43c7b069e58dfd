"""Live play through the services: moves, races, bots, clocks, the finishing path."""
from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.core.cache import cache
from django.db import connection
from django.utils import timezone

from games import engine as E
from games import services, signals, states, tasks
from games.exceptions import (
    AlreadySeated,
    CannotClaim,
    ChatEmpty,
    ChatTooLong,
    DuplicateAction,
    Forbidden,
    IllegalAction,
    InvalidAction,
    InvalidSettings,
    NotOpen,
    NotPlaying,
    NotSeated,
    NotYourTurn,
    RateLimited,
    StaleVersion,
    TableFull,
)
from games.models import ActionSource, Ending, Game, Seat, Table, TableAction, TableStatus
from tests.support.tables import play_one, start_table, state_of

pytestmark = pytest.mark.django_db(transaction=True)


def test_create_validates_settings(rooms, make_user):
    user = make_user()
    with pytest.raises(InvalidSettings):
        services.table_create(user=user, room=rooms["classic"], seat_count=3)
    with pytest.raises(InvalidSettings):
        services.table_create(user=user, room=rooms["classic"], seconds_per_turn=0)
    with pytest.raises(InvalidSettings):
        services.table_create(user=user, room=rooms["beginners"], rated=True)
    with pytest.raises(InvalidSettings):
        services.table_create(user=user, room=rooms["rummy-3-4"], seat_count=2)
    with pytest.raises(InvalidSettings):
        services.table_create(user=user, room=rooms["classic"], target=10)
    assert Table.objects.count() == 0


def test_sit_starts_when_full_and_deals_from_the_stored_seed(rooms, two_players):
    alice, bob = two_players
    table = services.table_create(user=alice, room=rooms["classic"])
    assert table.status == TableStatus.OPEN and table.state is None
    with pytest.raises(AlreadySeated):
        services.table_sit(table_id=table.pk, user=alice)
    services.table_sit(table_id=table.pk, user=bob)
    table.refresh_from_db()
    assert table.status == TableStatus.PLAYING
    state = states.load(table.state)
    assert state.seed == table.seed
    assert table.turn_deadline is not None and table.deadline_seat == state.to_act
    carol = type(alice).objects.create_user("carol", password="x")
    with pytest.raises(NotOpen):
        services.table_sit(table_id=table.pk, user=carol)


def test_leave_before_start_and_full_table(rooms, make_user):
    a, b, c = make_user(), make_user(), make_user()
    table = services.table_create(user=a, room=rooms["rummy"], seat_count=3)
    services.table_sit(table_id=table.pk, user=b)
    services.table_leave(table_id=table.pk, user=b)
    with pytest.raises(NotSeated):
        services.table_leave(table_id=table.pk, user=b)
    services.table_add_bot(table_id=table.pk, user=a, seat=1, level=1)
    services.table_sit(table_id=table.pk, user=c)
    table.refresh_from_db()
    assert table.status == TableStatus.PLAYING
    with pytest.raises(NotOpen):
        services.table_sit(table_id=table.pk, user=b)
    t2 = services.table_create(user=a, room=rooms["classic"])
    services.table_sit(table_id=t2.pk, user=b)
    with pytest.raises((TableFull, NotOpen)):
        services.table_sit(table_id=t2.pk, user=c)


def test_private_table_needs_invite(rooms, two_players):
    alice, bob = two_players
    table = services.table_create(user=alice, room=rooms["classic"], private=True)
    with pytest.raises(Forbidden):
        services.table_sit(table_id=table.pk, user=bob)
    with pytest.raises(Forbidden):
        services.table_sit(table_id=table.pk, user=bob, invite="wrong")
    services.table_sit(table_id=table.pk, user=bob, invite=table.invite_token)
    assert Seat.objects.filter(table=table, user=bob).exists()


def test_refusals_change_nothing(rooms, two_players):
    alice, bob = two_players
    table = start_table(rooms["classic"], [alice, bob])
    users = {0: alice, 1: bob}
    state = state_of(table.pk)
    actor, other = users[state.to_act], users[1 - state.to_act]
    before = (table.version, table.state)
    with pytest.raises(NotYourTurn):
        services.table_act(table_id=table.pk, user=other, action="pass",
                           expected_version=table.version)
    with pytest.raises(StaleVersion):
        services.table_act(table_id=table.pk, user=actor, action="pass",
                           expected_version=table.version - 1)
    with pytest.raises(InvalidAction):
        services.table_act(table_id=table.pk, user=actor, action="fly:away",
                           expected_version=table.version)
    with pytest.raises(IllegalAction):
        services.table_act(table_id=table.pk, user=actor, action="discard:AS",
                           expected_version=table.version)
    with pytest.raises(InvalidAction):
        services.table_act(table_id=table.pk, user=actor, action=["pass"],
                           expected_version=table.version)
    stranger = type(alice).objects.create_user("zed", password="x")
    with pytest.raises(NotSeated):
        services.table_act(table_id=table.pk, user=stranger, action="pass",
                           expected_version=table.version)
    table.refresh_from_db()
    assert (table.version, table.state) == before
    assert not TableAction.objects.filter(table=table).exists()
    # A move applies once; the same id again is a duplicate.
    v = services.table_act(table_id=table.pk, user=actor, action="pass",
                           expected_version=table.version, client_id="m-1")
    assert v == before[0] + 1
    with pytest.raises(DuplicateAction):
        services.table_act(table_id=table.pk, user=actor, action="pass",
                           expected_version=v, client_id="m-1")
    assert TableAction.objects.filter(table=table).count() == 1


def test_racing_actions_exactly_one_applies(rooms, two_players):
    alice, bob = two_players
    table = start_table(rooms["classic"], [alice, bob])
    state = state_of(table.pk)
    actor = {0: alice, 1: bob}[state.to_act]
    moves = [str(a) for a in E.legal_actions(state)]  # take_upcard / pass
    results, barrier = [], threading.Barrier(2)

    def go(text, cid):
        try:
            barrier.wait()
            services.table_act(table_id=table.pk, user=actor, action=text,
                               expected_version=table.version, client_id=cid)
            results.append("ok")
        except (StaleVersion, DuplicateAction, NotYourTurn) as exc:
            results.append(exc.code)
        finally:
            connection.close()

    threads = [threading.Thread(target=go, args=(moves[i], f"r{i}")) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == ["ok", "stale_version"]
    assert TableAction.objects.filter(table=table).count() == 1
    assert Table.objects.get(pk=table.pk).version == table.version + 1


def test_bot_fills_a_seat_and_plays(rooms, two_players):
    alice, _ = two_players
    table = services.table_create(user=alice, room=rooms["classic"])
    services.table_add_bot(table_id=table.pk, user=alice, seat=1, level=1)
    table.refresh_from_db()
    assert table.status == TableStatus.PLAYING
    for _ in range(6):
        play_one(table.pk, {0: alice})
    assert TableAction.objects.filter(table=table, source=ActionSource.BOT).exists()
    state = state_of(table.pk)
    assert state.to_act == 0 or state.is_over
    # The bot task for an old version does nothing (safe to run twice).
    table.refresh_from_db()
    assert tasks.table_bot_move(table.pk, table.version - 1) is False


def test_play_the_computer_to_the_end(rooms, make_user):
    user = make_user()
    finished = []

    def on_finish(sender, game_id, table_id, **kw):
        finished.append(game_id)

    signals.game_finished.connect(on_finish)
    try:
        table = services.table_create(user=user, room=rooms["classic"], target=50,
                                      seconds_per_turn=0, bot_level=2)
        assert table.status == TableStatus.PLAYING
        for _ in range(3000):
            if Table.objects.get(pk=table.pk).status != TableStatus.PLAYING:
                break
            play_one(table.pk, {0: user})
    finally:
        signals.game_finished.disconnect(on_finish)
    table.refresh_from_db()
    assert table.status == TableStatus.FINISHED
    game = Game.objects.get(table=table)
    assert finished == [game.pk]
    assert game.ending == Ending.NORMAL and game.hands
    assert max(p.score for p in game.players.all()) >= 50
    assert game.final["result"]["totals"] == [p.score for p in game.players.order_by("seat")]
    # The stored actions replay from the seed to the same result.
    state = states.new_state(game.mode, game.seed, game.num_players, game.target)
    for a in game.actions:
        state, _ = E.apply(state, a["action"], a["seat"])
    assert state.is_over and state.result.to_dict() == game.final["result"]
    # So does the exported record, in the engine's format (JSON and text).
    from games import records

    text = records.record_text(game)
    assert E.replay(E.GameRecord.from_text(text)) == state
    assert E.replay(records.engine_record(game)).result == state.result


def test_rummy_three_players_with_bots_to_the_end(rooms, make_user):
    user = make_user()
    table = services.table_create(user=user, room=rooms["rummy-3-4"], seat_count=3, target=50,
                                  seconds_per_turn=0, bot_level=1)
    for _ in range(3000):
        if Table.objects.get(pk=table.pk).status != TableStatus.PLAYING:
            break
        play_one(table.pk, {0: user})
    game = Game.objects.get(table=table)
    assert game.num_players == 3 and game.players.count() == 3
    assert sorted(p.place for p in game.players.all())[0] == 1


def test_restart_resumes_from_the_stored_state(rooms, two_players, rng):
    alice, bob = two_players
    users = {0: alice, 1: bob}
    table = start_table(rooms["classic"], [alice, bob])
    for _ in range(7):
        play_one(table.pk, users, rng)
    before = Table.objects.get(pk=table.pk)
    # A "restart": nothing in memory survives; everything reloads from the database.
    cache.clear()
    connection.close()
    again = Table.objects.get(pk=table.pk)
    assert again.state == before.state and again.version == before.version
    state = states.load(again.state)
    assert states.dump(state) == before.state
    v = play_one(table.pk, users, rng)
    assert v == before.version + 1


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


def test_chat_limits(rooms, two_players):
    alice, bob = two_players
    table = services.table_create(user=alice, room=rooms["classic"])
    msg = services.chat_post(table_id=table.pk, user=alice, text="  <b>hi</b>  there ")
    assert msg.text == "<b>hi</b> there"  # stored raw; escaped when rendered
    with pytest.raises(ChatEmpty):
        services.chat_post(table_id=table.pk, user=alice, text="   ")
    with pytest.raises(ChatTooLong):
        services.chat_post(table_id=table.pk, user=alice, text="x" * 301)
    for _ in range(4):
        services.chat_post(table_id=table.pk, user=alice, text="spam")
    with pytest.raises(RateLimited):
        services.chat_post(table_id=table.pk, user=alice, text="one too many")
    services.chat_post(table_id=table.pk, user=bob, text="others may still talk")


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


def test_the_services_never_import_the_tasks():
    """``games.tasks`` calls the services; the services queue tasks by name (no import circle)."""
    import ast
    import pathlib

    package = pathlib.Path(services.__file__).parent
    for path in package.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                names = [node.module or "", *(a.name for a in node.names)]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            assert not any(n == "tasks" or n.endswith(".tasks") for n in names), path.name


def test_games_settings_have_defaults_and_follow_overrides(settings):
    from games import conf

    del settings.GAMES_BOT_DELAY  # the test settings' (0, 0)
    assert conf.get("BOT_DELAY") == (0.6, 1.5)
    assert conf.get("MAX_TIMEOUTS") == 3
    settings.GAMES_MAX_TIMEOUTS = 5
    assert conf.get("MAX_TIMEOUTS") == 5
