"""Presence follows live play through ``games.signals``. A finished game clears its players'
"playing" mark by the one receiver pattern (docs/architecture.md): nothing done in the signal,
an idempotent task keyed by the game id (``social.game_finished``) queued after the commit,
a failure to queue logged, never raised into the end of the game."""
from __future__ import annotations

import logging

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from games import services as games_services
from games import signals
from games.models import Game, Room
from games.rooms import ensure_default_rooms
from social import presence, tasks

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def finished(users):
    """alice beat bob (bob resigned) at a public table; returns (game, alice, bob)."""
    ensure_default_rooms(Room)
    alice, bob = users["alice"], users["bob"]
    table = games_services.table_create(user=alice, room=Room.objects.get(slug="classic"))
    games_services.table_sit(table_id=table.pk, user=bob)
    assert presence.presence_playing(alice.pk)["table_id"] == table.pk
    assert presence.presence_playing(bob.pk)["table_id"] == table.pk
    games_services.table_resign(table_id=table.pk, user=bob)
    return Game.objects.get(table_id=table.pk), alice, bob


def test_a_finished_game_clears_its_players_playing(finished):
    game, alice, bob = finished
    assert presence.presence_playing(alice.pk) is None
    assert presence.presence_playing(bob.pk) is None
    assert presence.presence_of([alice.pk])[alice.pk].state != presence.PLAYING


def test_the_signal_only_queues_the_task_keyed_by_the_game_after_the_commit(users, monkeypatch):
    queued = []
    monkeypatch.setattr(tasks.game_finished, "delay", queued.append)
    # Inside a transaction that rolls back: nothing queued.
    with pytest.raises(RuntimeError), transaction.atomic():
        signals.game_finished.send(sender=Game, game_id=4242, table_id=7)
        raise RuntimeError
    assert queued == []
    # The signal itself reads nothing; the task is queued with the game's id at the commit.
    with transaction.atomic():
        with CaptureQueriesContext(connection) as queries:
            signals.game_finished.send(sender=Game, game_id=4242, table_id=7)
        assert queued == []
        assert len(queries) == 0
    assert queued == [4242]


def test_a_failure_to_queue_never_breaks_the_end_of_a_game(users, monkeypatch, caplog):
    def down(game_id):
        raise ConnectionError("the broker is down")

    monkeypatch.setattr(tasks.game_finished, "delay", down)
    with caplog.at_level(logging.ERROR):
        signals.game_finished.send(sender=Game, game_id=4242, table_id=7)  # does not raise
    assert any("4242" in r.getMessage() for r in caplog.records)


def test_the_task_is_idempotent_and_leaves_other_tables_alone(finished):
    game, alice, bob = finished
    # bob already sat down elsewhere when a late (or repeated) task runs: he stays playing.
    presence.presence_set_playing(bob.pk, game.table_id + 1000, "/tables/elsewhere/")
    presence.presence_set_playing(alice.pk, game.table_id, "/tables/again/")
    assert sorted(tasks.game_finished(game.pk)) == sorted([alice.pk, bob.pk])
    assert presence.presence_playing(alice.pk) is None
    assert presence.presence_playing(bob.pk)["table_id"] == game.table_id + 1000
    assert sorted(tasks.game_finished(game.pk)) == sorted([alice.pk, bob.pk])
    assert presence.presence_playing(bob.pk)["table_id"] == game.table_id + 1000
    assert tasks.game_finished(10**9) == []  # a game that is gone


def test_a_table_that_fills_up_calls_its_other_players(users, monkeypatch):
    """``game_started``: the people who waited at a table (not the one whose move filled
    it) get a ``table_start`` frame, once the seat is committed; a seat that leaves one free,
    and a rolled-back one, send nothing; a failure to send is logged, never raised into play."""
    from social import notify as social_notify
    from social import receivers

    sent = []
    monkeypatch.setattr(social_notify, "notify_users",
                        lambda ids, frame: sent.append((list(ids), frame)))
    ensure_default_rooms(Room)
    alice, bob, carol = users["alice"], users["bob"], users["carol"]
    rummy = games_services.table_create(user=alice, room=Room.objects.get(slug="rummy"),
                                        seat_count=3)
    games_services.table_sit(table_id=rummy.pk, user=bob)
    assert sent == []  # a seat still free: not started
    games_services.table_add_bot(table_id=rummy.pk, user=bob, seat=2, level=1)
    assert sent == [([alice.pk], {"type": "table_start",
                                  "table": {"id": rummy.pk, "url": f"/tables/{rummy.pk}/"},
                                  "name": f"Basic Rummy · table {rummy.pk}"})]
    sent.clear()
    classic = games_services.table_create(user=alice, room=Room.objects.get(slug="classic"))
    with pytest.raises(RuntimeError), transaction.atomic():
        games_services.table_sit(table_id=classic.pk, user=carol)
        raise RuntimeError
    assert sent == []  # rolled back: nobody is told
    games_services.table_sit(table_id=classic.pk, user=carol)
    assert [ids for ids, _ in sent] == [[alice.pk]]

    def down(ids, frame):
        raise ConnectionError("channel layer down")

    monkeypatch.setattr(social_notify, "notify_users", down)
    receivers.on_game_started(None, table_id=classic.pk, user_ids=[alice.pk], url="/x/",
                              mode="classic")


def test_a_player_at_a_table_still_waiting_for_players_is_waiting_not_playing(users, client):
    """A person seated alone at a waiting table showed to contacts as "Playing at a table ·
    Watch" although no game had begun. Waiting until the start, playing from it, for every
    player, the one whose move started it included (a computer added)."""
    from social.templatetags.social_tags import presence_label

    ensure_default_rooms(Room)
    alice, bob = users["alice"], users["bob"]
    rummy = games_services.table_create(user=alice, room=Room.objects.get(slug="rummy"),
                                        seat_count=3)
    games_services.table_sit(table_id=rummy.pk, user=bob)
    for user in (alice, bob):
        shown = presence.presence_of([user.pk])[user.pk]
        assert shown.state == "playing" and shown.waiting
        assert presence_label(shown) == "Waiting at a table"
        assert shown.as_frame()["table"] == {"id": rummy.pk, "url": f"/tables/{rummy.pk}/",
                                             "waiting": True}
    games_services.table_add_bot(table_id=rummy.pk, user=bob, seat=2, level=1)
    for user in (alice, bob):
        shown = presence.presence_of([user.pk])[user.pk]
        assert shown.state == "playing" and not shown.waiting, user.username
        assert presence_label(shown) == "Playing at a table"
    # a game dealt at once (against the computer) is playing from the first
    carol = users["carol"]
    games_services.play_computer(user=carol, mode="classic", level=1)
    assert not presence.presence_of([carol.pk])[carol.pk].waiting


def test_a_player_still_seated_elsewhere_is_shown_there_once_a_game_ends(users):
    """An audit's player sat at two waiting tables, then played and finished a game at a
    third: he showed "Online" although two tables still held his seat."""
    ensure_default_rooms(Room)
    alice, bob = users["alice"], users["bob"]
    classic = Room.objects.get(slug="classic")
    waiting = games_services.table_create(user=alice, room=classic)
    played = games_services.table_create(user=bob, room=classic)
    games_services.table_sit(table_id=played.pk, user=alice)
    assert presence.presence_playing(alice.pk)["table_id"] == played.pk
    games_services.table_resign(table_id=played.pk, user=bob)
    shown = presence.presence_of([alice.pk])[alice.pk]
    assert shown.state == "playing" and shown.table_id == waiting.pk and shown.waiting
    assert presence.presence_playing(bob.pk) is None  # bob has no other seat


def test_leaving_one_waiting_table_shows_the_player_at_the_other(users):
    """An audit's player waited at two tables and left one: his contacts saw "Online" while
    the other table still held his seat."""
    ensure_default_rooms(Room)
    alice, bob = users["alice"], users["bob"]
    classic = Room.objects.get(slug="classic")
    first = games_services.table_create(user=alice, room=classic)
    second = games_services.table_create(user=bob, room=Room.objects.get(slug="rummy"),
                                         seat_count=3)
    games_services.table_sit(table_id=second.pk, user=alice)
    assert presence.presence_playing(alice.pk)["table_id"] == second.pk
    games_services.table_leave(table_id=second.pk, user=alice)
    shown = presence.presence_of([alice.pk])[alice.pk]
    assert shown.state == "playing" and shown.table_id == first.pk and shown.waiting
    games_services.table_leave(table_id=first.pk, user=alice)
    assert presence.presence_playing(alice.pk) is None
    # the last one to leave a table, seated nowhere else, is shown at none
    games_services.table_leave(table_id=second.pk, user=bob)
    assert presence.presence_playing(bob.pk) is None
