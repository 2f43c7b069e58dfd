"""A person who leaves a game of three or four (resigns, times out, is claimed as gone) while
another person plays on: the game goes on with the computer in their seat, their place fixed
below everyone who stays (services.departures)."""
from __future__ import annotations

import json
from datetime import datetime, timedelta

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.utils import timezone

from games import conf, frames, records, seat_rules, selectors, services
from games import engine as E
from games.exceptions import LeftGame
from games.models import (
    ActionSource,
    Ending,
    Game,
    ImportedRecord,
    Seat,
    Table,
    TableAction,
    TableStatus,
)
from games.models.tables import grace_seconds
from tests.support.tables import play_one, play_to_the_end, start_table, state_of

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def four(make_user):
    return [make_user(n) for n in ("alice", "bob", "cleo", "dan")]


def _with_a_computer(rooms, alice, bob):
    """A three-seat Rummy table in play: alice (seat 0), bob (seat 1) and the Easy computer."""
    table = services.table_create(user=alice, room=rooms["rummy-3-4"], seat_count=3,
                                  target=50)
    services.table_add_bot(table_id=table.pk, user=alice, seat=2, level=1)
    services.table_sit(table_id=table.pk, user=bob)
    return table


def _seats(table_id):
    return list(Seat.objects.filter(table_id=table_id).select_related("user").order_by("index"))


def test_a_resignation_among_four_people_hands_the_seat_to_the_computer(rooms, four):
    alice, bob, cleo, dan = four
    table = start_table(rooms["rummy-3-4"], four, target=50)
    before = Table.objects.get(pk=table.pk).version
    services.table_resign(table_id=table.pk, user=alice)
    after = Table.objects.get(pk=table.pk)
    assert after.status == TableStatus.PLAYING and after.version > before
    seat = _seats(table.pk)[0]
    assert seat.user_id is None and seat.bot_level == 2 and seat.left_user_id == alice.pk
    assert seat.left["reason"] == Ending.RESIGNATION and seat.left["place"] == 4
    shown = frames.seats_data(_seats(table.pk))
    assert shown[0]["kind"] == "bot" and shown[0]["name"] == "Computer (for alice)"
    assert shown[0]["short_name"] == "for alice"
    assert shown[0]["left"] == {"username": "alice", "name": "alice", "reason": "resignation",
                                "at": seat.left["at"], "place": 4,
                                "after_hands": seat.left["after_hands"]}
    assert [s["left"] for s in shown[1:]] == [None, None, None]
    # the leaver is no longer held in the game; the others are
    assert services.games_in_play(alice) is None
    assert services.games_in_play(bob) is not None
    assert table.pk not in {t["id"] for t in selectors.user_live_tables(alice)}
    assert table.pk in {t["id"] for t in selectors.user_live_tables(bob)}
    # their moves and a second resignation are refused, saying why
    with pytest.raises(LeftGame):
        services.table_act(table_id=table.pk, user=alice, action="draw:stock",
                           expected_version=after.version)
    with pytest.raises(LeftGame):
        services.table_resign(table_id=table.pk, user=alice)


def test_the_others_play_to_the_end_above_the_leaver(rooms, four):
    alice, bob, cleo, dan = four
    # A fixed deal: one hand of 53 moves, which the computer playing on for alice wins (the
    # people play safe moves and never meld). A random one ran from one hand to 30 (2,800
    # moves, 39 s in CI).
    table = start_table(rooms["rummy-3-4"], four, target=50, seed=3)
    for _ in range(6):
        play_one(table.pk, dict(enumerate(four)))
    services.table_resign(table_id=table.pk, user=alice)
    game = play_to_the_end(table.pk, dict(enumerate(four)))
    assert game.ending == Ending.NORMAL and game.loser_seat is None
    players = {p.seat: p for p in game.players.all()}
    assert players[0].user_id == alice.pk and players[0].name == "alice"
    assert players[0].bot_level is None and players[0].place == 4 and not players[0].won
    assert players[0].left == Ending.RESIGNATION
    assert sorted(p.place for p in players.values())[-1] == 4
    assert all(players[i].place < 4 and players[i].left == "" for i in (1, 2, 3))
    # the others by the rules among themselves: the engine's winner first (unless it was the
    # computer in the leaver's seat), then by totals, ties sharing a place
    totals = game.final["totals"]
    for i in (1, 2, 3):
        assert players[i].place == 1 + sum(totals[j] > totals[i] for j in (1, 2, 3))
    # the rules' winner is the computer in alice's seat: it wins nothing, and the three who
    # stayed, level at 0, share the first place with no winner
    assert game.final["result"]["winner"] == 0 and totals[0] >= 50
    assert [players[i].place for i in (1, 2, 3)] == [1, 1, 1]
    assert game.winner_seat is None and not any(p.won for p in players.values())
    # the record names the leaver and the computer that played on, and replays exactly
    record = game.record
    assert record["players"][0]["username"] == "alice"
    assert record["players"][0]["played_on_by"] == {"name": "Computer (for alice)",
                                                    "bot_level": 2}
    assert record["forfeit"] is None
    [leaver] = record["leavers"]
    assert leaver["seat"] == 0 and leaver["reason"] == "resignation" and leaver["place"] == 4
    assert leaver["after_hands"] == 0 and leaver["at"]
    assert record["engine"]["players"][0] == "alice"
    state = E.replay(records.engine_record(game))
    assert state.is_over and list(state.result.totals) == game.final["totals"]
    # (alice's total of the game is partly the computer's: the line says who played it)
    assert selectors.game_summary(players[1])["ending"] \
        == "alice resigned, and the computer played their seat on"
    sources = {a.source for a in TableAction.objects.filter(table_id=table.pk, seat=0)}
    assert ActionSource.BOT in sources
    # the analysis judges none of the computer's moves in alice's seat as hers: exactly those
    engine = records.engine_record(game)
    played_on = records.played_on_moves(game, engine)
    assert played_on == {i for i, a in enumerate(game.actions)
                         if a["seat"] == 0 and a["source"] == ActionSource.BOT}
    assert played_on and not any(game.actions[i]["seat"] != 0 for i in played_on)
    # the replay and the score sheet name the computer, not alice, for what it played
    [stand_in] = records.stand_ins(game)
    assert stand_in.pop("left_at") == datetime.fromisoformat(leaver["at"])
    assert stand_in == {"seat": 0, "name": "Computer (for alice)", "from_ply": 6,
                        "after_hands": 0}
    from games import replay

    data = replay.replay_data(engine, [players[i].name for i in range(4)],
                              records.stand_ins(game))
    assert data["stand_ins"] == [{"seat": 0, "from_ply": 6, "name": "Computer (for alice)"}]
    texts = [f["text"] for f in data["frames"][1:]]
    assert all(texts[i].startswith("Computer (for alice) ") for i in played_on)
    assert not any("alice" in t and not t.startswith("Computer (for alice)")
                   for t in texts[6:])
    assert all(row["winner_name"] == "Computer (for alice)" for row in data["sheet"])
    sheet = selectors.score_sheet(game)
    assert [r["winner"] for r in sheet["rows"]] == ["Computer (for alice)"] * len(game.hands)
    # the game's page and the text record say so too
    client = Client()
    client.force_login(bob)
    page = client.get(game.get_absolute_url()).content.decode()
    assert "resigned, and the computer played their seat on" in page
    assert ("# alice resigned after 0 hands, placed 4; the computer played seat 0 on"
            in records.record_text(game))


def test_earlier_leavers_rank_below_later_ones_and_the_last_person_ends_it(rooms, four):
    alice, bob, cleo, dan = four
    table = start_table(rooms["rummy-3-4"], four, target=50)
    services.table_resign(table_id=table.pk, user=alice)
    # bob is gone past the grace period and claimed
    Seat.objects.filter(table=table, user=bob).update(
        last_seen=timezone.now() - timedelta(seconds=grace_seconds() + 30))
    services.table_claim(table_id=table.pk, user=dan)
    seats = _seats(table.pk)
    assert seats[1].left["reason"] == Ending.ABANDONMENT and seats[1].left["place"] == 3
    assert Table.objects.get(pk=table.pk).status == TableStatus.PLAYING
    # cleo resigns: dan alone would play on for a place that is his already, so it ends
    services.table_resign(table_id=table.pk, user=cleo)
    game = Game.objects.get(table_id=table.pk)
    assert game.ending == Ending.RESIGNATION and game.loser_seat == 2
    places = {p.seat: (p.place, p.won, p.left) for p in game.players.all()}
    assert places == {0: (4, False, "resignation"), 1: (3, False, "abandonment"),
                      2: (2, False, "resignation"), 3: (1, True, "")}
    assert [(x["username"], x["place"]) for x in game.record["leavers"]] == [
        ("alice", 4), ("bob", 3), ("cleo", 2)]
    assert game.record["forfeit"]["username"] == "cleo"
    summary = selectors.game_summary(next(p for p in game.players.all() if p.seat == 3))
    assert summary["ending"].startswith(
        "alice resigned and bob left, and the computer played their seats on; cleo resigned")


def test_a_person_with_only_computers_left_ends_the_game(rooms, two_players):
    alice, bob = two_players
    table = _with_a_computer(rooms, alice, bob)
    # alice leaves: bob plays on against the computer, the Medium one in her seat
    services.table_resign(table_id=table.pk, user=alice)
    assert Table.objects.get(pk=table.pk).status == TableStatus.PLAYING
    # bob leaves: no person would be left, so the game ends now, bob last of those who stayed
    services.table_resign(table_id=table.pk, user=bob)
    game = Game.objects.get(table_id=table.pk)
    assert game.ending == Ending.RESIGNATION and game.loser_seat == 1
    assert {p.seat: p.place for p in game.players.all()} == {0: 3, 1: 2, 2: 1}
    assert game.winner_seat == 2


@pytest.mark.parametrize("room", ["classic", "rummy"])
def test_two_player_games_still_end_at_once(rooms, two_players, room):
    alice, bob = two_players
    table = start_table(rooms[room], [alice, bob])
    services.table_resign(table_id=table.pk, user=alice)
    game = Game.objects.get(table_id=table.pk)
    assert game.ending == Ending.RESIGNATION and game.loser_seat == 0 and game.winner_seat == 1
    assert Seat.objects.get(table=table, index=0).user_id == alice.pk


def test_a_timeout_forfeit_hands_the_seat_over_and_the_computer_plays_the_turn(
        rooms, four):
    table = start_table(rooms["rummy-3-4"], four[:3], target=50)
    seat = state_of(table.pk).to_act
    Seat.objects.filter(table=table, index=seat).update(timeouts=conf.get("MAX_TIMEOUTS") - 1)
    Table.objects.filter(pk=table.pk).update(turn_deadline=timezone.now() - timedelta(seconds=5))
    assert services.table_timeout(table_id=table.pk) is True
    left = Seat.objects.get(table=table, index=seat)
    assert left.left["reason"] == Ending.TIMEOUT and left.left_user_id == four[seat].pk
    assert Table.objects.get(pk=table.pk).status == TableStatus.PLAYING
    # the computer took the turn that ran out (its move, not a timeout's)
    moves = list(TableAction.objects.filter(table=table, seat=seat))
    assert moves and all(m.source == ActionSource.BOT for m in moves)
    assert state_of(table.pk).to_act != seat


def test_the_leaver_watches_a_private_game_and_keeps_its_record(rooms, four, make_user):
    alice, bob, cleo, _ = four
    table = services.table_create(user=bob, room=rooms["rummy-3-4"], seat_count=3,
                                  target=50, private=True)
    # a fixed deal (the last seat taken deals from the seed): a random one ran to many hands
    Table.objects.filter(pk=table.pk).update(seed=2)
    for u in (alice, cleo):
        services.table_sit(table_id=table.pk, user=u, invite=table.invite_token)
    services.table_resign(table_id=table.pk, user=alice)
    table = Table.objects.get(pk=table.pk)
    assert selectors.table_access(table, alice, "") == (True, None)
    assert selectors.table_access(table, make_user("zed"), "") == (False, None)
    snap = selectors.table_snapshot(table.pk, alice, None)
    assert snap["you"]["role"] == "spectator" and snap["you"]["seat"] is None
    assert snap["you"]["left"]["reason"] == "resignation" and snap["you"]["left"]["place"] == 3
    assert selectors.table_snapshot(table.pk, bob, 0)["you"]["left"] is None
    game = play_to_the_end(table.pk, {0: bob, 1: alice, 2: cleo})
    assert selectors.game_for_viewer(game.pk, alice) is not None
    assert selectors.game_for_viewer(game.pk, make_user("yves")) is None


def test_no_hints_against_the_computer_that_plays_for_a_person(rooms, four):
    alice, bob, cleo, _ = four
    table = _with_a_computer(rooms, alice, bob)
    services.table_resign(table_id=table.pk, user=alice)
    assert Table.objects.get(pk=table.pk).status == TableStatus.PLAYING
    snap = selectors.table_snapshot(table.pk, bob, 1)
    assert snap["you"]["can_hint"] is False
    assert seat_rules.hints_allowed(rated=False, bot_seats=[True, False, True], seat=1)  # (without)


async def test_the_leavers_socket_watches_on_and_may_no_longer_move(rooms, four):
    from channels.db import database_sync_to_async

    from tests.support.sockets import connect, recv, send

    alice, bob, cleo, _ = four
    table = await database_sync_to_async(start_table)(rooms["rummy-3-4"], [alice, bob, cleo])
    comm = await connect(table.pk, alice)
    other = await connect(table.pk, bob)
    try:
        assert (await recv(comm, "snapshot"))["you"]["seat"] == 0
        await recv(other, "snapshot")
        await send(comm, {"type": "resign", "id": "r1"})
        assert (await recv(comm, "ack"))["id"] == "r1"
        # the others see at once that alice left and a computer plays her seat
        seen = await recv(other, "state")
        assert seen["table"]["status"] == "playing"
        assert seen["seats"][0]["name"] == "Computer (for alice)"
        assert seen["seats"][0]["left"]["reason"] == "resignation"
        assert seen["you"]["seat"] == 1 and seen["you"]["left"] is None
        # alice is shown the table as one who left it
        snap = await recv(comm, "snapshot")
        assert snap["you"]["role"] == "spectator" and snap["you"]["seat"] is None
        assert snap["you"]["left"]["place"] == 3 and snap["view"]["hand"] is None
        await send(comm, {"type": "action", "action": "draw:stock", "version": snap["version"],
                          "id": "m1"})
        error = await recv(comm, "error")
        assert error["code"] == "left_game" and "computer plays your seat" in error["message"]
        await send(comm, {"type": "resign", "id": "r2"})
        assert (await recv(comm, "error"))["code"] == "left_game"
    finally:
        await comm.disconnect()
        await other.disconnect()


def test_a_rematch_leaves_the_seat_of_the_one_who_left_open(rooms, four, make_user):
    """The rematch of a game a person left had put a Medium computer nobody chose in their
    seat (at a rated table too, whose game a computer then made unrated). Their seat is
    open there: the table waits for somebody to sit, and starts when the seat is taken.
    Nor is the leaver its creator (who may open a private table): a private rematch is its
    players' alone."""
    alice, bob, cleo, _ = four
    table = services.table_create(user=alice, room=rooms["rummy-3-4"], seat_count=3,
                                  target=50, private=True)
    for u in (bob, cleo):
        services.table_sit(table_id=table.pk, user=u, invite=table.invite_token)
    services.table_resign(table_id=table.pk, user=alice)  # the game goes on...
    services.table_resign(table_id=table.pk, user=cleo)  # ...and ends: bob is alone
    assert Table.objects.get(pk=table.pk).status == TableStatus.FINISHED
    for u in (bob, cleo):
        services.seat_presence(table_id=table.pk, user=u, connected=True)
        services.table_rematch(table_id=table.pk, user=u)
    new = Table.objects.get(pk=table.pk).rematch_table
    assert new is not None and new.status == TableStatus.OPEN
    seats = _seats(new.pk)
    assert [(s.user, s.bot_level) for s in seats] == [(cleo, None), (None, None), (bob, None)]
    assert new.created_by_id in {bob.pk, cleo.pk}
    client = Client()
    client.force_login(alice)
    assert client.get(new.get_absolute_url()).status_code == 404
    client.force_login(bob)
    assert client.get(new.get_absolute_url()).status_code == 200
    services.table_sit(table_id=new.pk, user=make_user("erin"), invite=new.invite_token)
    new.refresh_from_db()
    assert new.status == TableStatus.PLAYING


def _went_on_game(rooms, four) -> Game:
    """The fixed game of ``test_the_others_play_to_the_end_above_the_leaver``: alice resigns
    after 6 moves, the computer plays her seat on and wins the one hand."""
    table = start_table(rooms["rummy-3-4"], four, target=50, seed=3)
    for _ in range(6):
        play_one(table.pk, dict(enumerate(four)))
    services.table_resign(table_id=table.pk, user=four[0])
    return play_to_the_end(table.pk, dict(enumerate(four)))


def test_its_record_file_imports_with_the_computer_named_after_the_leaver(rooms, four):
    """The site's JSON says how many moves were made before each leaver the computer played
    on for (moves_before), so an import of it names the computer from there, as the game's
    own page does; the kept record's page too."""
    game = _went_on_game(rooms, four)
    client = Client()
    client.force_login(four[1])
    text = client.get(f"/games/{game.pk}/record.json").content.decode()
    assert json.loads(text)["leavers"][0]["moves_before"] == 6
    record, names, forfeit, stand_ins = records.record_import_with_forfeit(text)
    assert forfeit is None and names[0] == "alice"
    assert stand_ins == [{"seat": 0, "from_ply": 6, "name": "Computer (for alice)"}]
    answer = client.post("/games/import/", {"record": SimpleUploadedFile(
        "game.json", text.encode(), content_type="application/json")})
    kept = ImportedRecord.objects.get()
    assert answer.status_code == 302 and kept.stand_ins == stand_ins
    shown = client.get(kept.get_absolute_url())
    page = " ".join(shown.content.decode().split())
    assert ("After move 6, alice left and Computer (for alice) played the seat on (as the "
            "file says)") in page
    frames = shown.context["replay"]["frames"]
    assert [f["text"].startswith("alice ") for f in frames[1:7] if f["move"][0] == 0] == [
        True, True]
    assert all(f["text"].startswith("Computer (for alice) ") for f in frames[7:]
               if f["move"][0] == 0)
    assert shown.context["replay"]["sheet"][0]["winner_name"] == "Computer (for alice)"


def _import_as(user, data):
    """``data`` imported as a file by ``user``, through the page's form."""
    client = Client()
    client.force_login(user)
    return client.post("/games/import/", {"record": SimpleUploadedFile(
        "game.json", json.dumps(data).encode(), content_type="application/json")})


@pytest.mark.parametrize("moves_before", [-1, 10_000, "6", True, None])
def test_a_leaver_with_moves_before_outside_the_record_is_refused(rooms, four, moves_before):
    game = _went_on_game(rooms, four)
    data = records.record_json(game)
    data["leavers"][0]["moves_before"] = moves_before
    answer = _import_as(four[1], data)
    assert answer.status_code == 400
    assert "leavers are not valid" in answer.content.decode()
    assert not ImportedRecord.objects.exists()


def _computer_at_seat_3(data):
    data["players"][3]["bot_level"] = 2
    data["leavers"].append({"seat": 3, "reason": "timeout", "moves_before": 8})


@pytest.mark.parametrize("spoil", [
    lambda d: d["leavers"].append("x"),
    lambda d: d["leavers"][0].update(seat=None),
    lambda d: d["leavers"][0].update(seat="0"),
    lambda d: d["leavers"][0].update(reason="zzz"),
    lambda d: d["leavers"][0].update(at="yesterday"),
    lambda d: d["leavers"][0].update(at=7),
    lambda d: d["leavers"].append({**d["leavers"][0]}),  # the same seat twice
    lambda d: d["leavers"].append({"seat": 2, "reason": "resignation"} | {"seat": "2"}),
    _computer_at_seat_3,  # a computer never leaves
], ids=["not-a-dict", "no-seat", "seat-text", "reason", "at-text", "at-number", "twice",
        "seat-text-no-moves", "computer"])
def test_a_leaver_the_record_cannot_have_had_is_refused(rooms, four, spoil):
    """An audit imported leavers without a seat, with a reason "zzz", a time that is not one,
    and every seat leaving, computers included: each was taken (and the page named a
    computer "Computer (seat 2)")."""
    game = _went_on_game(rooms, four)
    data = records.record_json(game)
    spoil(data)
    client = Client()
    client.force_login(four[1])
    answer = client.post("/games/import/", {"record": SimpleUploadedFile(
        "game.json", json.dumps(data).encode(), content_type="application/json")})
    assert answer.status_code == 400, answer.content
    assert "leavers are not valid" in answer.content.decode()
    assert not ImportedRecord.objects.exists()


def test_a_computer_the_file_does_not_name_is_named_after_the_leaver(rooms, four):
    game = _went_on_game(rooms, four)
    data = records.record_json(game)
    data["players"][0].pop("played_on_by")
    stand_ins = records.record_import_with_forfeit(json.dumps(data))[3]
    assert stand_ins == [{"seat": 0, "from_ply": 6, "name": "Computer (for alice)"}]


def test_the_same_game_imported_again_with_who_left_completes_the_kept_record(rooms, four):
    """An audit imported a game's engine record, then the site's JSON of the same game with
    its leavers: the second was sent to the first ("You had imported this record already")
    and who left, and the computer that played on, were lost."""
    game = _went_on_game(rooms, four)
    client = Client()
    client.force_login(four[1])
    site = client.get(f"/games/{game.pk}/record.json").content.decode()
    engine = json.dumps(json.loads(site)["engine"])

    def upload(text):
        return client.post("/games/import/", {"record": SimpleUploadedFile(
            "game.json", text.encode(), content_type="application/json")}, follow=True)

    upload(engine)
    kept = ImportedRecord.objects.get()
    assert kept.stand_ins == [] and kept.forfeit is None
    page = " ".join(upload(site).content.decode().split())
    assert "now with who forfeited or left, as this file says" in page
    kept = ImportedRecord.objects.get()
    assert kept.stand_ins == [{"seat": 0, "from_ply": 6, "name": "Computer (for alice)"}]
    assert "alice left and Computer (for alice) played the seat on" in page
    # the engine record again says nothing new: the kept one keeps what it has
    page = " ".join(upload(engine).content.decode().split())
    assert "You had imported this record already: here it is." in page
    assert ImportedRecord.objects.get().stand_ins == kept.stand_ins


@pytest.mark.parametrize("seat", [[1], {"a": 1}, "0", None])
def test_a_player_entry_with_a_seat_that_is_no_number_is_not_a_500(rooms, four, seat):
    """A players entry whose seat was a list made the leavers' check build a dict keyed by
    it: the import answered 500. Such an entry is ignored; the file's moves decide."""
    game = _went_on_game(rooms, four)
    data = records.record_json(game)
    data["players"][0]["seat"] = seat
    answer = _import_as(four[1], data)
    assert answer.status_code in (302, 400), answer.status_code
