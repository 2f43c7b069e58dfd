"""Live play through the services: tables made, sat at and left, moves, refusals, races,
bots, restarts (clocks, endings, rematches, chat and presence: test_services_endings.py)."""
from __future__ import annotations

import threading

import pytest
from django.core.cache import cache
from django.db import connection

from games import engine as E
from games import services, signals, states, tasks
from games.exceptions import (
    AlreadySeated,
    DuplicateAction,
    IllegalAction,
    InvalidAction,
    InvalidSettings,
    NotOpen,
    NotSeated,
    NotYourTurn,
    StaleVersion,
    TableFull,
    TableNotFound,
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
    # the one who pressed "Take a seat" a moment too late is told what happened
    with pytest.raises(NotOpen, match="Someone took the last seat just before you"):
        services.table_sit(table_id=table.pk, user=carol)
    # a player of the game pressing "Take a seat" again (a second tab) holds their seat
    version = Table.objects.get(pk=table.pk).version
    for player in (alice, bob):
        with pytest.raises(AlreadySeated):
            services.table_sit(table_id=table.pk, user=player)
    assert Table.objects.get(pk=table.pk).version == version
    services.table_resign(table_id=table.pk, user=bob)
    with pytest.raises(NotOpen, match="game is over"):
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
    with pytest.raises(NotOpen, match="The game has started: resign instead"):
        services.table_leave(table_id=t2.pk, user=b)
    # over: "resign instead" would send them after a game that has ended (an outside audit)
    services.table_resign(table_id=t2.pk, user=b)
    with pytest.raises(NotOpen, match="This table's game is over: there is no seat to leave"):
        services.table_leave(table_id=t2.pk, user=a)


def test_private_table_needs_invite(rooms, two_players):
    alice, bob = two_players
    table = services.table_create(user=alice, room=rooms["classic"], private=True)
    with pytest.raises(TableNotFound):  # as if there were no such table
        services.table_sit(table_id=table.pk, user=bob)
    with pytest.raises(TableNotFound):
        services.table_sit(table_id=table.pk, user=bob, invite="wrong")
    with pytest.raises(TableNotFound):  # (no 500 for a character outside ASCII)
        services.table_sit(table_id=table.pk, user=bob, invite="\u00fc")
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


def test_the_computer_pauses_half_as_long_within_its_turn(settings):
    """The whole pause before a turn's first move, half of it before the rest of the turn
    (a discard after the draw, Rummy's melds): three computers at a table of four kept a
    person waiting up to 13 s between turns (an outside audit)."""
    from games import engine as E
    from games.services.clock import bot_delay

    settings.GAMES_BOT_DELAY = (0.6, 1.5)
    state = E.new_game("classic", 7)
    assert state.phase == E.Phase.OFFER
    first = [bot_delay(state) for _ in range(200)]
    while state.phase != E.Phase.DISCARD:
        state, _ = E.apply(state, E.legal_actions(state)[0], seat=state.to_act)
    later = [bot_delay(state) for _ in range(200)]
    assert 0.6 <= min(first) and max(first) <= 1.5
    assert 0.3 <= min(later) and max(later) <= 0.75
    rummy = E.new_game("rummy", 7, 4)
    rummy, _ = E.apply(rummy, "draw:stock", seat=rummy.to_act)
    assert rummy.phase == E.Phase.PLAY and bot_delay(rummy) <= 0.75
    settings.GAMES_BOT_DELAY = (0, 0)
    assert bot_delay(state) == 0.0
