"""``GET /api/games/export/<username>/``: a player's games as newline JSON, streamed, with
filters; public games for anyone, private ones only with the owner's ``games:read`` token
(docs/bot-api.md, "Export")."""
from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest
from django.http import StreamingHttpResponse

from accounts.models import ApiToken
from games import export
from games.models import Game
from tests.support.accounts import api_token, bearer, clear_cache, make_bot
from tests.support.records import finished_game

URL = "/api/games/export/{}/"


@pytest.fixture(autouse=True)
def fresh_limits():
    """Each test starts with fresh rate-limit counters (they live in the cache)."""
    clear_cache()
    yield
    clear_cache()


def day(n, hour=12):
    return datetime(2026, 11, n, hour, tzinfo=UTC)


@pytest.fixture
def games(make_user):
    """alice's games: three public (classic on the 10th, hollywood on the 20th, classic on
    the 25th), one private (classic on the 22nd); and one of bob's without her."""
    alice, bob, carol = make_user("alice"), make_user("bob"), make_user("carol")
    made = {
        "c10": finished_game([alice, bob], mode="classic", seed=1, at=day(10)),
        "h20": finished_game([bob, alice], mode="hollywood", seed=2, at=day(20)),
        "p22": finished_game([alice, bob], mode="classic", seed=3, at=day(22), private=True),
        "c25": finished_game([alice, carol], mode="classic", seed=4, at=day(25)),
        "other": finished_game([bob, carol], mode="classic", seed=5, at=day(26)),
    }
    return alice, bob, made


def lines(response):
    assert response.status_code == 200, response.content
    assert isinstance(response, StreamingHttpResponse)
    assert response["Content-Type"] == "application/x-ndjson"
    body = b"".join(response.streaming_content).decode()
    assert body == "" or body.endswith("\n")
    return [json.loads(line) for line in body.splitlines()]


def ids(response):
    return [r["game_id"] for r in lines(response)]


@pytest.mark.django_db
def test_public_games_for_anyone_newest_first(client, games):
    alice, _, g = games
    got = client.get(URL.format("alice"))
    assert got["Content-Disposition"] == 'attachment; filename="alice-games.ndjson"'
    records = lines(got)
    assert [r["game_id"] for r in records] == [g["c25"].pk, g["h20"].pk, g["c10"].pk]
    first = records[0]
    assert first["format"] == "ginsite-game/1" and first["engine"]["format"] == "gin-record/1"
    assert first["finished_at"] == "2026-11-25T12:00:00Z"
    assert [p["username"] for p in first["players"]] == ["alice", "carol"]
    # a case-insensitive username finds the player
    assert ids(client.get(URL.format("ALICE"))) == [g["c25"].pk, g["h20"].pk, g["c10"].pk]


@pytest.mark.django_db
def test_private_games_only_with_the_owners_token(client, games, make_user):
    alice, bob, g = games
    everything = [g["c25"].pk, g["p22"].pk, g["h20"].pk, g["c10"].pk]
    public = [g["c25"].pk, g["h20"].pk, g["c10"].pk]
    assert ids(client.get(URL.format("alice"), **bearer(api_token(alice, "games:read")))) \
        == everything
    # the session alone (the browser of the owner) does not open private games
    client.force_login(alice)
    assert ids(client.get(URL.format("alice"))) == public
    client.logout()
    # another player's token, even one who played that private game, sees the public ones
    assert ids(client.get(URL.format("alice"), **bearer(api_token(bob, "games:read")))) \
        == public


@pytest.mark.django_db
def test_bad_tokens_are_refused_not_ignored(client, games, make_user):
    alice, _, _ = games
    raw = api_token(alice, "games:read")
    ApiToken.objects.update(revoked_at=datetime.now(UTC))
    response = client.get(URL.format("alice"), **bearer(raw))
    assert response.status_code == 401 and response.json()["error"] == "invalid_token"
    bot = make_bot(make_user("robo"))
    response = client.get(URL.format("robo"), **bearer(api_token(bot, "bot:play")))
    assert response.status_code == 403 and response.json()["error"] == "missing_scope"
    response = client.get(URL.format("alice"), HTTP_AUTHORIZATION="Token abc")
    assert response.status_code == 401


@pytest.mark.django_db
@pytest.mark.parametrize(("query", "expected"), [
    ("mode=classic", ["c25", "c10"]),
    ("mode=hollywood", ["h20"]),
    ("mode=rummy", []),
    ("since=2026-11-20", ["c25", "h20"]),
    ("until=2026-11-20", ["h20", "c10"]),
    ("since=2026-11-11&until=2026-11-24", ["h20"]),
    ("since=2026-11-20T12:00:01Z", ["c25"]),
    ("until=2026-11-20T12:00:00%2B00:00", ["c10"]),
    ("max=2", ["c25", "h20"]),
    ("mode=classic&max=1", ["c25"]),
])
def test_filters(client, games, query, expected):
    _, _, g = games
    assert ids(client.get(f"{URL.format('alice')}?{query}")) == [g[k].pk for k in expected]


@pytest.mark.django_db
@pytest.mark.parametrize("query", [
    "mode=chess", "since=yesterday", "until=2026-13-01", "max=0", "max=-1", "max=abc",
    "max=99999999", "since=2026-11-20&until=2026-11-10", "colour=red",
    "since=" + "9" * 200, "mode=classic&mode=rummy", "max=1&max=2",
    # forms Python's ISO reader took that the docs do not give: other digits, no dashes, a
    # week
    "since=\u0662\u0660\u0662\u0666-\u0661\u0661-\u0660\u0661", "since=20261101",
    "since=2026-W48-1", "until=2026-11-20T12:00:00%2B00:00x",
])
def test_bad_filters_are_400(client, games, query):
    response = client.get(f"{URL.format('alice')}?{query}")
    assert response.status_code == 400
    body = response.json()
    assert body["error"] == "bad_filter" and body["detail"]


@pytest.mark.django_db
def test_unknown_player_is_404(client):
    response = client.get(URL.format("nobody"))
    assert response.status_code == 404 and response.json()["error"] == "not_found"


@pytest.mark.django_db
def test_post_is_refused(client, games):
    response = client.post(URL.format("alice"))
    assert response.status_code == 405 and response["Allow"] == "GET, HEAD"
    assert response.json()["error"] == "method_not_allowed"


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/api/", "/api/nothing/", "/api/bot/challenges/abc/accept/",
                                  "/api/bot/challenges/-1/accept/", "/api/bot/games/x/"])
def test_an_unknown_api_path_answers_json(client, path):
    response = client.get(path)
    assert response.status_code == 404 and response["Content-Type"] == "application/json"
    assert response.json()["error"] == "not_found"
    # pages outside the API keep the site's own 404 page
    assert b"<html" in client.get("/no-such-page/").content


@pytest.mark.django_db
def test_it_streams_in_batches(client, games, monkeypatch):
    alice, _, g = games
    monkeypatch.setattr(export, "BATCH", 2)
    response = client.get(URL.format("alice"), **bearer(api_token(alice, "games:read")))
    chunks = list(response.streaming_content)
    assert len(chunks) == 2  # four games: two batches of two
    assert [len(c.splitlines()) for c in chunks] == [2, 2]
    assert b"".join(chunks).count(b"\n") == 4


@pytest.mark.django_db
def test_a_long_history_is_read_batch_by_batch(client, make_user, monkeypatch,
                                               django_assert_max_num_queries):
    alice, bob = make_user("alice"), make_user("bob")
    for i in range(7):
        finished_game([alice, bob], seed=i, at=day(1) + timedelta(hours=i))
    monkeypatch.setattr(export, "BATCH", 3)
    response = client.get(URL.format("alice"))
    stream = iter(response.streaming_content)
    with django_assert_max_num_queries(2):  # one batch: its ids, then its games
        assert len(next(stream).splitlines()) == 3
    assert sum(len(c.splitlines()) for c in stream) == 4
    assert Game.objects.count() == 7


@pytest.mark.django_db
def test_anonymous_exports_are_rate_limited_per_address(client, games, settings):
    alice, _, _ = games
    settings.ACCOUNTS_API_ANON_RATE_REQUESTS = 2
    for _ in range(2):
        assert client.get(URL.format("alice")).status_code == 200
    response = client.get(URL.format("alice"))
    assert response.status_code == 429 and response.json()["error"] == "rate_limited"
    assert int(response["Retry-After"]) >= 1
    # another address, or a token, has its own budget
    assert client.get(URL.format("alice"), REMOTE_ADDR="10.0.0.9").status_code == 200
    assert client.get(URL.format("alice"),
                      **bearer(api_token(alice, "games:read"))).status_code == 200


@pytest.mark.django_db(transaction=True)
async def test_under_asgi_the_body_is_an_async_stream(async_client, make_user):
    from asgiref.sync import sync_to_async

    alice, bob = await sync_to_async(lambda: (make_user("alice"), make_user("bob")))()
    game = await sync_to_async(finished_game)([alice, bob], at=day(3))
    response = await async_client.get(URL.format("alice"))
    assert response.status_code == 200 and response.is_async
    body = b"".join([chunk async for chunk in response.streaming_content])
    assert [json.loads(line)["game_id"] for line in body.splitlines()] == [game.pk]
    # the export read in the thread sync_to_async keeps: close its connection, so the
    # test database can be dropped at the end
    from django.db import connections

    await sync_to_async(connections.close_all)()
