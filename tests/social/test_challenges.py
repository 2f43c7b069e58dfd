"""Challenges (docs/bot-api.md, "Challenges"): who may challenge whom, the limits, accepting
(a table with both seated, dealt at once), declining, cancelling, expiry; the bot API's
endpoints with their errors (each changing nothing), and the pages people use."""
from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from games.models import Room, Seat, Table, TableStatus
from games.rooms import ensure_default_rooms
from social import policy, services
from social.models import Block, Challenge, ChallengeStatus
from social.tasks import challenges_expire_task
from tests.support.accounts import api_token, bearer, make_bot

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def rooms(db):
    ensure_default_rooms(Room)


@pytest.fixture
def bot(make_user):
    return make_bot(make_user(username="gbot", display_name="G Bot"))


@pytest.fixture
def bot2(make_user):
    return make_bot(make_user(username="hbot"))


@pytest.fixture
def token(bot):
    return api_token(bot, "bot:play")


def api(client, method, path, token, body=None, raw=None):
    data = raw if raw is not None else (json.dumps(body) if body is not None else "")
    call = getattr(client, method)
    return call(path, data=data, content_type="application/json", **bearer(token))


def send(sender, recipient, **settings):
    return services.challenge_send(sender=sender, recipient=recipient,
                                   **{"mode": "classic", **settings})


# --- who may challenge whom -------------------------------------------------------------------

def test_people_challenge_bots_and_bots_challenge_people_who_let_them(alice, bob, bot):
    assert policy.can_challenge(alice, bot)
    assert policy.can_challenge(bot, alice)
    refused = policy.can_challenge(alice, bob)
    assert refused.reason == policy.Reason.NOT_BOT
    alice.bots_may_challenge = False
    alice.save()
    refused = policy.can_challenge(bot, alice)
    assert refused.public_code == "not_allowed"
    assert policy.can_challenge(alice, bot)  # her choice is about bots challenging her
    with pytest.raises(services.SocialError) as err:
        send(bot, alice)
    assert err.value.code == "not_allowed"
    assert not Challenge.objects.exists()


@pytest.mark.parametrize("blocker", ["person", "bot"])
def test_blocking_applies_both_ways(alice, bot, blocker):
    a, b = (alice, bot) if blocker == "person" else (bot, alice)
    Block.objects.create(blocker=a, blocked=b)
    for sender, recipient in ((alice, bot), (bot, alice)):
        with pytest.raises(services.SocialError) as err:
            send(sender, recipient)
        assert err.value.code == "not_allowed"  # read as a refusal, never as a block
    assert not Challenge.objects.exists()


def test_a_block_since_cancels_the_challenge_on_accept(alice, bot):
    challenge = send(alice, bot)
    Block.objects.create(blocker=alice, blocked=bot)
    with pytest.raises(services.NotFound):
        services.challenge_accept(user=bot, challenge_id=challenge.pk)
    challenge.refresh_from_db()
    assert challenge.status == ChallengeStatus.CANCELLED and challenge.table_id is None
    assert not Table.objects.exists()


def test_settings_are_checked_as_the_table_would(alice, bot):
    for bad in ({"mode": "chess"}, {"target": 20}, {"seconds_per_turn": 0},
                {"seconds_per_turn": 45}):
        with pytest.raises(services.SocialError) as err:
            send(alice, bot, **bad)
        assert err.value.code == "invalid_settings", bad
    assert not Challenge.objects.exists()


def test_open_challenges_are_limited_per_account(alice, bot, settings):
    settings.SOCIAL_CHALLENGES_OPEN_MAX = 2
    send(alice, bot)
    send(alice, bot, mode="straight")
    with pytest.raises(services.SocialError) as err:
        send(alice, bot, mode="oklahoma")
    assert err.value.code == "too_many_challenges"
    assert Challenge.objects.count() == 2


def test_a_bot_waits_for_at_most_so_many_challenges(users, bot, settings):
    settings.SOCIAL_CHALLENGES_INCOMING_MAX = 2
    send(users["alice"], bot)
    send(users["bob"], bot)
    with pytest.raises(services.SocialError) as err:
        send(users["carol"], bot)
    assert err.value.code == "too_many_challenges"


# --- accept, decline, cancel, expiry ----------------------------------------------------------

def test_accepting_starts_a_table_with_both_seated(alice, bot):
    challenge = send(alice, bot, rated=True, target=150, seconds_per_turn=60)
    accepted = services.challenge_accept(user=bot, challenge_id=challenge.pk)
    assert accepted.status == ChallengeStatus.ACCEPTED
    table = Table.objects.get(pk=accepted.table_id)
    assert table.status == TableStatus.PLAYING
    assert (table.mode, table.rated, table.target, table.seconds_per_turn) == (
        "classic", True, 150, 60)
    seats = list(Seat.objects.filter(table=table).order_by("index"))
    assert [(s.user_id, s.bot_level) for s in seats] == [(alice.pk, None), (bot.pk, None)]
    assert table.turn_deadline is not None  # a real seat on the clock, as anyone's
    with pytest.raises(services.SocialError) as err:
        services.challenge_accept(user=bot, challenge_id=challenge.pk)
    assert err.value.code == "answered"
    assert Table.objects.count() == 1


def test_only_the_challenged_answer_and_only_the_challenger_cancels(alice, bob, bot):
    challenge = send(alice, bot)
    for user in (alice, bob):
        with pytest.raises(services.NotFound):
            services.challenge_accept(user=user, challenge_id=challenge.pk)
        with pytest.raises(services.NotFound):
            services.challenge_decline(user=user, challenge_id=challenge.pk)
    with pytest.raises(services.NotFound):
        services.challenge_cancel(user=bot, challenge_id=challenge.pk)
    services.challenge_cancel(user=alice, challenge_id=challenge.pk)
    challenge.refresh_from_db()
    assert challenge.status == ChallengeStatus.CANCELLED
    second = send(alice, bot)
    services.challenge_decline(user=bot, challenge_id=second.pk)
    second.refresh_from_db()
    assert second.status == ChallengeStatus.DECLINED
    assert not Table.objects.exists()


def test_an_old_challenge_expires(alice, bot):
    challenge = send(alice, bot)
    Challenge.objects.filter(pk=challenge.pk).update(
        created_at=timezone.now() - timedelta(hours=1))
    with pytest.raises(services.SocialError) as err:
        services.challenge_accept(user=bot, challenge_id=challenge.pk)
    assert err.value.code == "expired"
    assert not Table.objects.exists()
    other = send(alice, bot)
    Challenge.objects.filter(pk=other.pk).update(created_at=timezone.now() - timedelta(hours=1))
    assert challenges_expire_task() == 1  # the beat's task, every minute
    assert Challenge.objects.get(pk=other.pk).status == ChallengeStatus.EXPIRED
    assert challenges_expire_task() == 0


def test_a_person_who_stops_bots_meanwhile_is_not_seated(alice, bot):
    challenge = send(bot, alice)
    alice.bots_may_challenge = False
    alice.save()
    with pytest.raises(services.SocialError):
        services.challenge_accept(user=alice, challenge_id=challenge.pk)
    assert not Table.objects.exists()


# --- the bot API ------------------------------------------------------------------------------

def test_the_api_challenges_lists_accepts_and_declines(client, alice, bot, bot2, token):
    r = api(client, "post", "/api/bot/challenges/", token,
            {"to": "hbot", "mode": "rummy", "target": None, "seconds_per_turn": 15,
             "rated": True})
    assert r.status_code == 201, r.content
    sent = r.json()["challenge"]
    assert (sent["from"]["username"], sent["to"]["username"], sent["to"]["bot"]) == (
        "gbot", "hbot", True)
    assert sent["status"] == "pending" and sent["table"] is None
    incoming = send(alice, bot)
    r = api(client, "get", "/api/bot/challenges/", token)
    assert r.status_code == 200
    assert [c["id"] for c in r.json()["incoming"]] == [incoming.pk]
    assert [c["id"] for c in r.json()["outgoing"]] == [sent["id"]]
    r = api(client, "post", f"/api/bot/challenges/{incoming.pk}/accept/", token)
    assert r.status_code == 200, r.content
    table = r.json()["challenge"]["table"]
    assert table["socket"] == f"/ws/table/{table['id']}/"
    assert Seat.objects.filter(table_id=table["id"], user=bot).exists()
    r = api(client, "post", f"/api/bot/challenges/{incoming.pk}/accept/", token)
    assert (r.status_code, r.json()["error"]) == (409, "answered")
    r = api(client, "get", "/api/bot/games/", token)
    assert [g["id"] for g in r.json()["games"]] == [table["id"]]
    other_token = api_token(bot2, "bot:play")
    r = api(client, "post", f"/api/bot/challenges/{sent['id']}/decline/", other_token)
    assert r.json()["challenge"]["status"] == "declined"


def test_api_errors_change_nothing(client, alice, bot, bot2, token):
    mine = send(alice, bot)
    theirs = send(alice, bot2)
    cases = [
        # (method, path, token, body or raw, status, code)
        ("get", "/api/bot/challenges/", None, None, 401, "missing_token"),
        ("post", f"/api/bot/challenges/{mine.pk}/accept/", "gin_nonsense", None, 401,
         "invalid_token"),
        ("post", f"/api/bot/challenges/{theirs.pk}/accept/", token, None, 404, "not_found"),
        ("post", f"/api/bot/challenges/{theirs.pk}/cancel/", token, None, 404, "not_found"),
        ("post", "/api/bot/challenges/", token, "[1, 2", 400, "bad_request"),
        ("post", "/api/bot/challenges/", token, "[]", 400, "bad_request"),
        ("post", "/api/bot/challenges/", token, json.dumps({"to": "alice", "pad": "x" * 5000}),
         413, "too_large"),
        # past Django's own limit (2.5 MB) too: refused as JSON, not read
        ("post", "/api/bot/challenges/", token, json.dumps({"pad": "x" * 3_000_000}),
         413, "too_large"),
        ("post", "/api/bot/computer/", token, json.dumps({"pad": "x" * 3_000_000}),
         413, "too_large"),
        ("post", "/api/bot/challenges/", token, {"to": "alice", "mode": "go"}, 400,
         "bad_request"),
        ("post", "/api/bot/challenges/", token, {"to": "alice", "mode": "classic",
                                                 "seconds_per_turn": "30"}, 400, "bad_request"),
        ("post", "/api/bot/challenges/", token, {"to": "alice", "mode": "classic",
                                                 "rated": "yes"}, 400, "bad_request"),
        ("post", "/api/bot/challenges/", token, {"to": 5, "mode": "classic"}, 400,
         "bad_request"),
        ("post", "/api/bot/challenges/", token, {"to": "nobody", "mode": "classic"}, 404,
         "not_found"),
        ("post", "/api/bot/challenges/", token, {"to": "gbot", "mode": "classic"}, 400, "self"),
        ("post", "/api/bot/challenges/", token, {"to": "alice", "mode": "classic",
                                                 "target": 1000}, 400, "invalid_settings"),
        ("post", "/api/bot/computer/", token, {"mode": "classic", "level": 9}, 400,
         "bad_request"),
        ("post", "/api/bot/computer/", token, {"mode": "classic", "seats": True}, 400,
         "bad_request"),
    ]
    for method, path, tok, body, status, code in cases:
        if tok is None:
            r = getattr(client, method)(path)
        elif isinstance(body, str):
            r = api(client, method, path, tok, raw=body)
        else:
            r = api(client, method, path, tok, body)
        assert (r.status_code, r.json()["error"]) == (status, code), (path, body, r.content)
        assert r.json()["detail"]
    assert Challenge.objects.count() == 2
    assert Challenge.objects.filter(status=ChallengeStatus.PENDING).count() == 2
    assert not Table.objects.exists()


@pytest.mark.parametrize("raw, detail", [
    ('{"to": "alice", "mode": "classic"', "not valid JSON"),
    ('{"to": "al\\u0000ice", "mode": "classic"}', "NUL character"),
    ('{"to": "\\ud800", "mode": "classic"}', "surrogate"),
    ('{"a": {"b": {"c": {"d": {"e": 1}}}}}', "nested more than 4 levels"),
    ("[1]", "must be a JSON object"),
])
def test_a_body_that_is_not_a_json_object_is_told_why(client, bot, token, raw, detail):
    r = api(client, "post", "/api/bot/challenges/", token, raw=raw)
    assert (r.status_code, r.json()["error"]) == (400, "bad_request")
    assert detail in r.json()["detail"]
    assert not Challenge.objects.exists()


def test_a_body_must_be_sent_as_json_in_utf8(client, alice, bot, token):
    """A JSON body sent as text/plain, with no type or in Latin-1 was taken all the same (read
    as UTF-8 whatever the request said)."""
    body = json.dumps({"to": "alice", "mode": "classic"})
    for ctype in ("text/plain", "application/x-www-form-urlencoded",
                  "application/json; charset=latin-1", "application/json; charset=bogus"):
        r = client.generic("POST", "/api/bot/challenges/", body, content_type=ctype,
                           **bearer(token))
        assert (r.status_code, r.json()["error"]) == (415, "unsupported_media_type"), ctype
    assert not Challenge.objects.exists()
    r = client.post("/api/bot/challenges/", data=body,
                    content_type="application/json; charset=UTF-8", **bearer(token))
    assert r.status_code == 201, r.content


def test_the_api_needs_the_bot_scope_a_live_token_and_no_session_is_enough(client, alice, bot):
    challenge = send(alice, bot)
    read_only = api_token(bot, "games:read")
    r = api(client, "post", f"/api/bot/challenges/{challenge.pk}/accept/", read_only)
    assert (r.status_code, r.json()["error"]) == (403, "missing_scope")
    person_token = api_token(alice, "games:read")
    r = api(client, "get", "/api/bot/challenges/", person_token)
    assert (r.status_code, r.json()["error"]) == (403, "missing_scope")
    from accounts.models import ApiToken
    from accounts.services import api_token_revoke

    revoked = api_token(bot, "bot:play")
    api_token_revoke(user=bot, token_id=ApiToken.objects.get(prefix=revoked[:10]).pk)
    r = api(client, "post", f"/api/bot/challenges/{challenge.pk}/accept/", revoked)
    assert (r.status_code, r.json()["error"]) == (401, "invalid_token")
    session = Client()
    session.force_login(bot)
    r = session.post(f"/api/bot/challenges/{challenge.pk}/accept/")
    assert (r.status_code, r.json()["error"]) == (401, "missing_token")
    assert Challenge.objects.get(pk=challenge.pk).status == ChallengeStatus.PENDING
    assert not Table.objects.exists()


def test_a_bot_plays_the_computer_through_the_api(client, bot, token):
    r = api(client, "post", "/api/bot/computer/", token, {"mode": "straight", "level": 4})
    assert r.status_code == 201, r.content
    table = Table.objects.get(pk=r.json()["table"]["id"])
    assert table.status == TableStatus.PLAYING and not table.rated
    seats = list(Seat.objects.filter(table=table).order_by("index"))
    assert [(s.user_id, s.bot_level) for s in seats] == [(bot.pk, None), (None, 4)]


def test_games_against_the_computer_in_play_are_capped(client, bot, token, settings):
    settings.GAMES_MAX_COMPUTER_TABLES = 3
    for _ in range(3):
        r = api(client, "post", "/api/bot/computer/", token, {"mode": "classic", "level": 1})
        assert r.status_code == 201, r.content
    r = api(client, "post", "/api/bot/computer/", token, {"mode": "classic", "level": 1})
    assert (r.status_code, r.json()["error"]) == (400, "too_many_tables")
    assert "3 games against the computer in play" in r.json()["detail"]
    assert Table.objects.count() == 3
    # one ended frees a place
    from games import services as games

    games.table_resign(table_id=Table.objects.first().pk, user=bot)
    r = api(client, "post", "/api/bot/computer/", token, {"mode": "classic", "level": 1})
    assert r.status_code == 201, r.content


# --- the pages for people ---------------------------------------------------------------------

def test_a_person_challenges_a_bot_from_its_profile(client_for, alice, bob, bot):
    page = client_for(alice).get(f"/u/{bot.username}/")
    assert b"Send challenge" in page.content
    assert b"Send challenge" not in client_for(alice).get(f"/u/{bob.username}/").content
    r = client_for(alice).post(f"/challenges/send/{bot.username}/", {
        "mode": "oklahoma", "target": "", "seconds_per_turn": "60", "rated": "on"})
    assert r.status_code == 302
    challenge = Challenge.objects.get()
    assert (challenge.from_user, challenge.to_user, challenge.mode, challenge.rated,
            challenge.seconds_per_turn, challenge.target) == (alice, bot, "oklahoma", True, 60,
                                                               None)
    page = client_for(alice).get("/challenges/")
    assert f'data-challenge-id="{challenge.pk}"'.encode() in page.content
    assert b"Oklahoma Gin, 60 s a turn, rated" in page.content  # (the mode's name, not "Oklahoma")
    assert b"Cancel challenge" in client_for(alice).get(f"/u/{bot.username}/").content
    r = client_for(alice).post(f"/challenges/send/{bot.username}/", {
        "mode": "oklahoma", "seconds_per_turn": "5"})
    assert r.status_code == 302 and Challenge.objects.count() == 1


def test_the_challenge_form_refuses_odd_numbers_without_a_500(client_for, alice, bot):
    """A form without its turn time took the default 30 as text (a 500: len() of an int), and
    "²" passed str.isdigit() to fail in int() (a 500)."""
    c = client_for(alice)
    for fields in ({"mode": "classic", "seconds_per_turn": "30", "target": "\u00b2"},
                   {"mode": "classic", "seconds_per_turn": "\u00b3"}):
        r = c.post(f"/challenges/send/{bot.username}/", fields)
        assert r.status_code == 302 and not Challenge.objects.exists()
        r = c.post(f"/challenges/send/{bot.username}/", fields, HTTP_ACCEPT="application/json")
        assert r.status_code == 400 and r.json()["error"]["code"] == "invalid_settings"
    # the form's refusals speak of its labels, not of the API's fields (an outside audit
    # read '"mode" must be one of classic, straight, ...' on the page)
    for fields, said in (({}, "Choose a game: Classic Gin, "),
                         ({"mode": "classic", "target": "x"}, "The target score is a whole"),
                         ({"mode": "classic", "seconds_per_turn": "5"},
                          "The time per turn is 15, 30 or 60 seconds.")):
        r = c.post(f"/challenges/send/{bot.username}/", fields, HTTP_ACCEPT="application/json")
        assert r.status_code == 400 and r.json()["error"]["message"].startswith(said), r.json()
    r = c.post(f"/challenges/send/{bot.username}/", {"mode": "classic"})  # 30 s, the default
    assert r.status_code == 302
    assert Challenge.objects.get().seconds_per_turn == 30


def test_a_person_accepts_a_bots_challenge_on_the_page(client_for, alice, bob, bot):
    challenge = send(bot, alice)
    page = client_for(alice).get("/challenges/")
    assert b"Accept and play" in page.content
    r = client_for(bob).post(f"/challenges/{challenge.pk}/accept/")
    assert r.status_code == 404
    r = client_for(alice).post(f"/challenges/{challenge.pk}/accept/")
    challenge.refresh_from_db()
    assert r.status_code == 302 and r["Location"] == f"/tables/{challenge.table_id}/"
    assert Seat.objects.filter(table_id=challenge.table_id, user=alice).exists()
