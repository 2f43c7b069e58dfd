"""The bot API against a real server (docs/bot-api.md): the example bot, run verbatim from
docs/examples/gin_bot.py as its own process, accepts a person's challenge and finishes a
rated game against a scripted person over real sockets, and finishes a rated game against
another copy of itself that challenged it; every table frame each bot got (its ``--log``)
goes through the table tests' leak scanner against the replayed truth. Then the refusals:
a token without the scope, a revoked token, another user's game, an illegal move, an
out-of-turn move and a flood each get their documented answer and change nothing.

The server is Daphne on this test's database with a real Celery worker taking every task
(the ratings of the finished games among them), as the run command has them: two processes.
"""
from __future__ import annotations

import asyncio
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest
from websockets.asyncio.client import connect as ws_connect
from websockets.exceptions import InvalidStatus

from accounts.models import ApiToken
from accounts.services import api_token_revoke
from games.models import Game, Seat, Table, TableAction
from leaderboards.models import Rating, RatingChange
from social.models import Challenge, ChallengeStatus
from tests.support.accounts import api_token, clear_cache, make_bot
from tests.support.protocol import PASSWORD, Http, TableClient, make_player, play_game
from tests.support.protocol_checks import Truth, check_all, leaks
from tests.support.servers import (
    ROOT,
    DaphneServer,
    shared_db_env,
    wait_for_other_db_sessions_to_end,
)
from tests.support.workers import celery_worker

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

EXAMPLE = ROOT / "docs" / "examples" / "gin_bot.py"


@pytest.fixture
def server(rooms, tmp_path, settings, monkeypatch):
    """Daphne on this test's database, its tasks published to a real worker whose frames
    reach Daphne as the run command's do (the relay, or Redis when the suite uses it)."""
    srv = DaphneServer(shared_db_env(), tmp_path / "daphne.log")
    monkeypatch.setenv("GINSITE_RELAY_URL", f"{srv.base}/internal/relay/")
    with celery_worker(settings, "test-botapi", default_queue=True) as (worker, queue):
        srv.env.update({"CELERY_TASK_ALWAYS_EAGER": "0", "CELERY_QUEUE": queue,
                        "GINSITE_RELAY_URL": f"{srv.base}/internal/relay/"})
        srv.start()
        try:
            yield srv
        finally:
            srv.stop()
            print("--- daphne log ---\n" + srv.log_tail())
    wait_for_other_db_sessions_to_end()


def bot_account(make_user, name: str) -> tuple:
    bot = make_bot(make_player(make_user, name))
    return bot, api_token(bot, "bot:play")


def run_example(server, token: str, log: Path, *args: str) -> subprocess.Popen:
    env = {**os.environ, "GIN_SITE": server.base, "GIN_TOKEN": token}
    return subprocess.Popen(
        [sys.executable, str(EXAMPLE), "--games", "1", "--log", str(log), *args],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )


def finish(proc: subprocess.Popen, timeout: float = 120) -> str:
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, _ = proc.communicate()
        raise AssertionError("the example bot did not finish:\n" + out[-3000:]) from None
    assert proc.returncode == 0, out[-3000:]
    return out


def accepted(**where) -> Challenge:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        challenge = Challenge.objects.filter(**where).first()
        if challenge is not None and challenge.status != ChallengeStatus.PENDING:
            assert challenge.status == ChallengeStatus.ACCEPTED, challenge.status
            return challenge
        time.sleep(0.2)
    raise AssertionError("the challenge was not answered")


def scan_log(log: Path, seat: int, truth: Truth) -> int:
    """Every frame the bot got holds nothing its seat may not see, and its frames reach the
    version that ended the game (how many that takes depends on the deal: a hand can end
    in three moves, so a count would be no check); returns how many frames."""
    over = min((v for v, s in truth.states.items() if s.is_over), default=10**9)
    frames = [json.loads(line) for line in log.read_text().splitlines()]
    table_frames = [f for f in frames if f["type"] in ("snapshot", "state")]
    assert table_frames, "the bot logged no table frame"
    for frame in frames:
        found = leaks(frame, seat, truth, over)
        assert not found, f"seat {seat} got {found} in {frame['type']} v{frame.get('version')}"
        if frame["type"] in ("snapshot", "state") and frame["you"]["role"] == "player":
            assert frame["you"]["seat"] == seat
    assert max(f["version"] for f in table_frames) >= over, "the bot missed the game's end"
    return len(frames)


def wait_rated(table_id: int, moved: set[int], timeout: float = 60) -> Game:
    """The finished game once the worker has rated it: exactly the users ``moved`` got a
    rating change for it (a person's rating never moves in a game with a bot)."""
    deadline = time.monotonic() + timeout
    game = Game.objects.get(table_id=table_id)
    while time.monotonic() < deadline:
        changed = set(RatingChange.objects.filter(game=game).values_list("user_id", flat=True))
        if changed:
            time.sleep(0.5)  # a second change would be written in the same transaction
            changed = set(RatingChange.objects.filter(game=game).values_list("user_id",
                                                                             flat=True))
            assert changed == moved, (changed, moved)
            return game
        time.sleep(0.3)
    raise AssertionError("the worker did not rate the game")


def test_the_example_bot_finishes_a_rated_game_against_a_person(server, make_user, tmp_path):
    make_player(make_user, "alice")
    bot, token = bot_account(make_user, "gbot")
    log = tmp_path / "gbot.ndjson"
    proc = run_example(server, token, log)
    person = Http(server.base)
    person.login("alice", PASSWORD)
    time.sleep(1)  # the bot's notification socket is open: the challenge reaches it live
    status, headers, body = person.post("/challenges/send/gbot/", {
        "mode": "classic", "target": "50", "seconds_per_turn": "60", "rated": "on"})
    assert status == 200 and json.loads(body)["ok"], body[:3000]  # it asked for JSON too
    table_id = accepted(to_user=bot).table_id

    async def play() -> TableClient:
        client = await TableClient.open("alice", server.ws_base, table_id, person,
                                        origin=server.base)
        await play_game({0: client}, [], client.latest["version"], random.Random(3))
        await client.close()
        return client

    client = asyncio.run(play())
    out = finish(proc)
    assert f"table {table_id} over" in out
    table = Table.objects.get(pk=table_id)
    assert table.status == "finished" and table.rated
    sources = set(TableAction.objects.filter(table=table).values_list("source", flat=True))
    assert sources == {"player"}, sources  # the bot's seat moved itself, never the server
    truth = Truth(table_id)
    scan_log(log, 1, truth)
    check_all({client: 0}, truth)
    game = wait_rated(table_id, {bot.pk})  # the bot's rating moved, the person's did not
    assert game.rated
    assert Rating.objects.get(user=bot, mode="classic").games == 1
    assert not Rating.objects.filter(user__username="alice", games__gt=0).exists()


def test_the_example_bot_finishes_a_rated_game_against_another_bot(server, make_user,
                                                                   tmp_path):
    host, host_token = bot_account(make_user, "hostbot")
    guest, guest_token = bot_account(make_user, "guestbot")
    host_log, guest_log = tmp_path / "host.ndjson", tmp_path / "guest.ndjson"
    host_proc = run_example(server, host_token, host_log, "--modes", "straight,classic")
    time.sleep(1)
    guest_proc = run_example(server, guest_token, guest_log, "--challenge", "hostbot",
                             "--mode", "classic", "--target", "50", "--seconds", "15",
                             "--rated")
    table_id = accepted(from_user=guest, to_user=host).table_id
    finish(guest_proc)
    finish(host_proc)
    seats = dict(Seat.objects.filter(table_id=table_id).values_list("user_id", "index"))
    assert seats == {guest.pk: 0, host.pk: 1}
    truth = Truth(table_id)
    scan_log(guest_log, 0, truth)
    scan_log(host_log, 1, truth)
    game = wait_rated(table_id, {host.pk, guest.pk})  # bots against bots: both move
    assert game.rated
    assert set(Rating.objects.filter(mode="classic", games=1).values_list("user_id",
                                                                          flat=True)) == {
        host.pk, guest.pk}
    # a challenge the site refuses stops the example with the reason (it waited for ever)
    lost = run_example(server, guest_token, tmp_path / "lost.ndjson", "--challenge", "nobody")
    try:
        out, _ = lost.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        lost.kill()
        raise AssertionError("the example bot kept waiting after a refused challenge") from None
    assert lost.returncode == 1 and "challenge: 404" in out and "was refused" in out, out


def test_refusals_over_the_socket_change_nothing(server, make_user, tmp_path):
    """No token, a token without the scope, a revoked token: the handshake is refused with
    its code. Another user's game, an illegal move, an out-of-turn move: an ``error`` frame
    and the table unchanged. A flood: ``rate_limited`` and the close ``4008``."""
    alice = make_player(make_user, "alice")
    bot, token = bot_account(make_user, "gbot")
    other, other_token = bot_account(make_user, "obot")
    read_only = api_token(bot, "games:read")
    revoked = api_token(bot, "bot:play")
    api_token_revoke(user=bot, token_id=ApiToken.objects.get(prefix=revoked[:10]).pk)
    from social import services

    challenge = services.challenge_send(sender=alice, recipient=bot, mode="classic",
                                        seconds_per_turn=60)
    table_id = services.challenge_accept(user=bot, challenge_id=challenge.pk).table_id
    private = Table.objects.create(room_id=Table.objects.get(pk=table_id).room_id,
                                   mode="classic", seat_count=2, target=100, private=True,
                                   invite_token="secret", seed=1, created_by=alice)
    url = f"{server.ws_base}/ws/table/{table_id}/"

    def bearer(raw):
        return {"Authorization": f"Bearer {raw}"}

    async def closed_with(path, headers) -> int:
        async with ws_connect(server.ws_base + path, additional_headers=headers) as ws:
            try:
                await asyncio.wait_for(ws.recv(), 5)
            except Exception:
                pass
            return ws.close_code

    async def scenario():
        with pytest.raises(InvalidStatus):  # no token, no Origin: a browser's path, refused
            async with ws_connect(url):
                pass
        assert await closed_with(f"/ws/table/{table_id}/", bearer(read_only)) == 4403
        assert await closed_with(f"/ws/table/{table_id}/", bearer(revoked)) == 4401
        assert await closed_with(f"/ws/table/{table_id}/", bearer("gin_unknown")) == 4401
        assert await closed_with("/ws/notify/", bearer(read_only)) == 4403
        # someone else's private game: missing, as for anybody without the invite
        assert await closed_with(f"/ws/table/{private.pk}/", bearer(token)) == 4404
        # someone else's public game: a spectator, no hand, and no move taken
        ws = await ws_connect(url, additional_headers=bearer(other_token))
        watcher = TableClient("obot", ws)
        snap = await watcher.wait_for(lambda f: f["type"] == "snapshot")
        assert snap["you"] == {**snap["you"], "role": "spectator", "seat": None}
        assert snap["view"]["hand"] is None
        version = snap["version"]
        err = await watcher.request({"type": "action", "action": "draw:stock",
                                     "version": version, "id": "x1"}, reply="error")
        assert err["code"] == "not_seated"
        await watcher.close()
        # the bot's own seat: out of turn, then an illegal move on its turn
        ws = await ws_connect(url, additional_headers=bearer(token))
        me = TableClient("gbot", ws)
        snap = await me.wait_for(lambda f: f["type"] == "snapshot")
        assert snap["you"]["seat"] == 1 and len(snap["view"]["hand"]) == 10
        moved = 0
        if snap["view"]["to_act"] == 1:  # the deal made the bot's seat first: pass it on
            legal = snap["view"]["legal_actions"]
            move = next(m for m in ("pass", "draw:stock") if m in legal)
            ack = await me.request({"type": "action", "action": move,
                                    "version": snap["version"], "id": "b0"})
            snap = await me.wait_version(ack["version"])
            moved += 1
        err = await me.request({"type": "action", "action": "draw:stock",
                                "version": snap["version"], "id": "early"}, reply="error")
        assert err["code"] == "not_your_turn"
        person = Http(server.base)
        person.login("alice", PASSWORD)
        alice_ws = await TableClient.open("alice", server.ws_base, table_id, person,
                                          server.base)
        first = alice_ws.latest
        legal = first["view"]["legal_actions"]
        move = next(m for m in ("pass", "draw:stock") if m in legal)  # the turn passes
        await alice_ws.request({"type": "action", "action": move,
                                "version": first["version"], "id": "a1"})
        mine = await me.wait_for(lambda f: f["type"] == "state" and f["view"]["legal_actions"])
        foreign = next(c for c in first["view"]["hand"]
                       if c not in mine["view"]["hand"])  # alice's card, not the bot's
        err = await me.request({"type": "action", "action": f"discard:{foreign}",
                                "version": mine["version"], "id": "bad"}, reply="error")
        assert err["code"] == "illegal_action"
        err = await me.request({"type": "action", "action": "fly away",
                                "version": mine["version"], "id": "bad2"}, reply="error")
        assert err["code"] == "invalid_action"
        before = mine["version"]
        # a flood: 101 frames in a burst
        for i in range(101):
            try:
                await me.ws.send(json.dumps({"type": "ping", "t": i}))
            except Exception:
                break
        await me.wait_for(lambda f: f["type"] == "error" and f["code"] == "rate_limited")
        deadline = time.monotonic() + 10
        while me.closed_code is None and time.monotonic() < deadline:
            await asyncio.sleep(0.1)
        assert me.closed_code == 4008
        await alice_ws.close()
        return before, moved + 1

    # The close codes above depend on the address's budget for calls without a valid token
    # (30 a minute): Redis keeps the counts of the tests before this one in this worker, and
    # the second CI pass once closed the revoked token's handshake 4429 (over the budget)
    # instead of 4401. This test starts from a fresh budget, as test_token_sockets does.
    clear_cache()
    before, moves = asyncio.run(scenario())
    table = Table.objects.get(pk=table_id)
    assert table.version == before
    assert TableAction.objects.filter(table=table).count() == moves  # the legal ones only
