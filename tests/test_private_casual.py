"""A private game is casual, and counted apart in its players' statistics (docs/ratings.md,
"Private games"; docs/stats.md): a rating and the public figures are seen by everybody, so a
private game must move neither. tests/test_private_games.py plays one through and compares
the public pages before and after; these are the ways in and the data from before the rule."""
from __future__ import annotations

import importlib
import re
from datetime import timedelta

import pytest
from django.apps import apps
from django.db import IntegrityError, transaction
from django.utils import timezone

from games import services as games_services
from games.exceptions import InvalidSettings
from games.forms import TableCreateForm
from games.models import Game, Room, Table
from games.rooms import ensure_default_rooms
from leaderboards.stats import facts
from leaderboards.stats import services as stats_services
from leaderboards.stats.models import GameFacts, PlayerStats
from leaderboards.tournaments import services as tournaments_services
from social import services as social_services
from tests.support.tables import play_then_resign

pytestmark = pytest.mark.django_db

REASON = "A private game is casual"


@pytest.fixture
def classic(db):
    ensure_default_rooms(Room)
    return Room.objects.get(slug="classic")


def test_a_private_table_cannot_be_opened_rated(classic, make_user, client):
    alice, bob = make_user("alice"), make_user("bob")
    form = TableCreateForm({"seats": "2", "seconds_per_turn": "30", "rated": "on",
                            "private": "on"}, room=classic)
    assert not form.is_valid() and REASON in form.errors["private"][0]
    client.force_login(alice)
    response = client.post("/play/classic/new/", {"seats": "2", "seconds_per_turn": "30",
                                                  "rated": "on", "private": "on"})
    assert response.status_code == 400 and REASON in response.content.decode()
    _describedby_ids_exist(response.content.decode())
    with pytest.raises(InvalidSettings, match=REASON):
        games_services.table_create(user=alice, room=classic, rated=True, private=True)
    with pytest.raises(InvalidSettings, match=REASON):
        games_services.table_create_for_players(room=classic, players=[alice, bob],
                                                rated=True, private=True)
    assert not Table.objects.exists()
    # casual, it opens; and public and rated, as before
    assert not games_services.table_create(user=alice, room=classic, private=True).rated
    assert games_services.table_create(user=bob, room=classic, rated=True).rated


def _describedby_ids_exist(page: str) -> None:
    """Every id an ``aria-describedby`` names is on the page (the settings forms' hints and
    errors had none, so a screen reader read neither)."""
    named = {i for ids in re.findall(r'aria-describedby="([^"]*)"', page) for i in ids.split()}
    assert named, "no aria-describedby"
    missing = [i for i in named if f'id="{i}"' not in page]
    assert not missing, missing


def test_an_invitation_to_a_rated_private_table_is_refused(classic, make_user, client):
    alice, bob = make_user("alice"), make_user("bob")
    social_services.contact_request_send(sender=alice, recipient=bob)
    social_services.contact_request_accept(
        user=bob, request_id=bob.contact_requests_received.get().pk)
    # the form puts the reason on its Private box (it came at the top of the form)
    client.force_login(alice)
    response = client.post("/invitations/new-table/", {
        "to": "bob", "mode": "classic", "seats": "2", "seconds_per_turn": "30",
        "rated": "on", "private": "on"})
    page = response.content.decode()
    assert response.status_code == 400
    assert re.search(r'id="id_private_error"><li>A private game is casual', page), page[-3000:]
    _describedby_ids_exist(page)
    with pytest.raises(social_services.SocialError, match=REASON):
        social_services.invitation_send_new_table(sender=alice, recipient=bob,
                                                  mode="classic", rated=True)
    assert not Table.objects.exists()
    social_services.invitation_send_new_table(sender=alice, recipient=bob, mode="classic",
                                              rated=True, private=False)
    assert Table.objects.get().rated


def test_a_private_tournament_is_casual(classic, make_user):
    staff = make_user("organiser", is_staff=True)
    start = timezone.now() + timedelta(minutes=30)
    private = tournaments_services.tournament_create(user=staff, name="Friends",
                                                     starts_at=start, private=True)
    public = tournaments_services.tournament_create(user=staff, name="Open", starts_at=start)
    assert not private.rated and public.rated


def test_the_database_holds_the_rule_and_a_private_game_and_its_rematch_are_casual(
        classic, make_user, django_capture_on_commit_callbacks):
    """No path that makes a table or a tournament can miss the rule (a rematch copies its
    table's settings; a tournament picks its own): the database refuses a rated private
    one, so nothing downstream (the finish path, the ratings) needs to check again."""
    alice, bob = make_user("alice"), make_user("bob")
    table = games_services.table_create(user=alice, room=classic, private=True)
    with pytest.raises(IntegrityError), transaction.atomic():
        Table.objects.filter(pk=table.pk).update(rated=True)
    staff = make_user("organiser", is_staff=True)
    cup = tournaments_services.tournament_create(
        user=staff, name="Friends", starts_at=timezone.now() + timedelta(minutes=30),
        private=True)
    with pytest.raises(IntegrityError), transaction.atomic():
        type(cup).objects.filter(pk=cup.pk).update(rated=True)
    with django_capture_on_commit_callbacks(execute=True):
        games_services.table_sit(table_id=table.pk, user=bob, invite=table.invite_token)
        play_then_resign(table.pk, {0: alice, 1: bob}, 1, bob)
    game = Game.objects.get(table=table)
    assert not game.rated and not game.players.filter(rated=True).exists()
    for u in (alice, bob):
        games_services.seat_presence(table_id=table.pk, user=u, connected=True)
    games_services.table_rematch(table_id=table.pk, user=alice)
    games_services.table_rematch(table_id=table.pk, user=bob)
    rematch = Table.objects.get(pk=table.pk).rematch_table
    assert rematch is not None and rematch.private and not rematch.rated


def test_the_recount_moves_private_games_out_of_the_public_figures(
        classic, make_user, monkeypatch, django_capture_on_commit_callbacks):
    """Statistics counted before the rule held private games among "people": the migration
    counts every such player's games again, and leaves everybody else's rows alone."""
    alice, bob, carol, dan = (make_user(n) for n in ("alice", "bob", "carol", "dan"))
    with django_capture_on_commit_callbacks(execute=True):
        for players, private in (((alice, bob), True), ((alice, carol), False),
                                 ((carol, dan), False)):
            table = games_services.table_create(user=players[0], room=classic,
                                                private=private)
            games_services.table_sit(table_id=table.pk, user=players[1],
                                     invite=table.invite_token)
            # (a few moves first: a game ended before both moved counts for nobody)
            play_then_resign(table.pk, list(players), 6, players[1])
    Game.objects.update(finished_at=timezone.now())  # (finishing order: by id)
    # the rows as they were counted before the rule
    PlayerStats.objects.all().delete()
    GameFacts.objects.all().delete()
    with monkeypatch.context() as m:
        m.setattr(facts, "opponents_kind", lambda players, seat: "people")
        for game in Game.objects.order_by("pk"):
            stats_services.stats_game_record(game_id=game.pk)
    assert PlayerStats.objects.get(user=alice, mode="all", opponents="people").games == 2
    untouched = list(PlayerStats.objects.filter(user__in=[carol, dan]).values())

    migration = importlib.import_module("leaderboards.stats.migrations.0003_private_games_apart")
    migration.recount(apps, None)
    public = PlayerStats.objects.get(user=alice, mode="all", opponents="people")
    private = PlayerStats.objects.get(user=alice, mode="all", opponents="private")
    assert (public.games, public.wins, private.games, private.wins) == (1, 1, 1, 1)
    assert not PlayerStats.objects.filter(user=bob, opponents="people").exists()
    assert PlayerStats.objects.get(user=bob, mode="classic", opponents="private").losses == 1
    assert set(GameFacts.objects.filter(user=alice).values_list("opponents", flat=True)) == {
        "people", "private"}
    assert list(PlayerStats.objects.filter(user__in=[carol, dan]).values()) == untouched
    # and the task counts a new private game apart, as the recount does
    assert facts.opponents_kind(list(Game.objects.order_by("pk")[0].players.all()), 0) \
        == "private"
