"""Issue 19, item 9: a player's own tables (Your tables on the Play page: Resume, Close),
games against the computer that their people left (not "Playing now", closed by the sweep),
and the cap on waiting tables."""
from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from games import conf, selectors, services
from games.exceptions import TooManyTables
from games.models import Ending, Game, Seat, Table, TableStatus

pytestmark = pytest.mark.django_db


def _waiting(room, user, n, **kw):
    return [services.table_create(user=user, room=room, seconds_per_turn=30, **kw)
            for _ in range(n)]


def test_waiting_tables_are_capped_per_player(rooms, make_user, client):
    alice, bob = make_user("alice"), make_user("bob")
    room = rooms["classic"]
    limit = conf.get("MAX_WAITING_TABLES")
    assert limit == 3
    first = _waiting(room, alice, limit - 1)[0]
    _waiting(room, alice, 1, private=True)  # private ones count too
    with pytest.raises(TooManyTables):
        services.table_create(user=alice, room=room, seconds_per_turn=30)
    assert Table.objects.filter(created_by=alice).count() == limit
    # The form says why, and nothing is created.
    client.force_login(alice)
    response = client.post(reverse("games:table_create", args=[room.slug]),
                           {"seats": "2", "seconds_per_turn": "30"})
    assert response.status_code == 400
    assert "already have 3 tables waiting" in response.content.decode()
    assert Table.objects.filter(created_by=alice).count() == limit
    # Sitting down at a fourth waiting table (three seats: it would not start) is refused too.
    other = services.table_create(user=bob, room=rooms["rummy"], seat_count=3,
                                  seconds_per_turn=30)
    with pytest.raises(TooManyTables):
        services.table_sit(table_id=other.pk, user=alice)
    # A game against the computer starts at once: it is not a waiting table.
    services.play_computer(user=alice, mode="classic", level=1)
    # Closing one frees a place.
    services.table_close(table_id=first.pk, user=alice)
    services.table_sit(table_id=other.pk, user=alice)


def test_games_against_the_computer_in_play_are_capped_per_player(rooms, make_user, client,
                                                                   settings):
    alice = make_user("alice")
    assert conf.get("MAX_COMPUTER_TABLES") == 10
    settings.GAMES_MAX_COMPUTER_TABLES = 2
    services.table_create(user=alice, room=rooms["classic"], seconds_per_turn=30)  # waiting
    games = [services.play_computer(user=alice, mode="classic", level=1) for _ in range(2)]
    with pytest.raises(TooManyTables):
        services.play_computer(user=alice, mode="straight", level=1)
    # the lobby's button says why, and nothing is created
    client.force_login(alice)
    page = client.post(reverse("games:play_computer"), {"mode": "classic", "level": "1",
                                                        "seats": "2"}, follow=True)
    assert "2 games against the computer in play: finish or resign one" in \
        page.content.decode()
    assert Table.objects.filter(created_by=alice).count() == 3
    services.table_resign(table_id=games[0].pk, user=alice)  # one over: a place again
    services.play_computer(user=alice, mode="straight", level=1)


def test_your_tables_lists_own_waiting_private_tables_with_resume_and_close(
        rooms, make_user, client):
    alice, bob = make_user("alice"), make_user("bob")
    private = services.table_create(user=alice, room=rooms["classic"], seconds_per_turn=30,
                                    private=True)
    game = services.play_computer(user=alice, mode="classic", level=1)
    client.force_login(alice)
    page = client.get(reverse("games:lobby")).content.decode()
    assert f"?invite={private.invite_token}" in page  # Resume goes back in, invite and all
    assert f"Cancel table {private.pk}" in page and f"Resign at table {game.pk}" in page
    assert page.count(">Resume</a>") == 2
    client.force_login(bob)
    page = client.get(reverse("games:lobby")).content.decode()
    assert private.invite_token not in page and "Your tables" not in page
    # Bob cannot close Alice's table.
    response = client.post(reverse("games:table_close", args=[private.pk]))
    assert response.status_code == 404  # (a private table is not his to know of)
    assert Table.objects.get(pk=private.pk).status == TableStatus.OPEN

    client.force_login(alice)
    # A game in progress is closed only with the confirmation: a resignation.
    client.post(reverse("games:table_close", args=[game.pk]))
    assert Table.objects.get(pk=game.pk).status == TableStatus.PLAYING
    client.post(reverse("games:table_close", args=[game.pk]), {"resign": "yes"})
    assert Game.objects.get(table=game).ending == Ending.RESIGNATION
    # A waiting table with nobody else at it is cancelled.
    response = client.post(reverse("games:table_close", args=[private.pk]))
    assert response.status_code == 302 and response.url == reverse("games:lobby")
    assert Table.objects.get(pk=private.pk).status == TableStatus.ABANDONED
    assert "Your tables" not in client.get(reverse("games:lobby")).content.decode()
    assert client.post(reverse("games:table_close", args=[999999])).status_code == 404


def test_the_home_page_leads_a_returning_player_back_to_their_tables(rooms, make_user, client):
    """The installed app opens on the home page: a player with a game in progress or a table
    waiting finds it there, with Resume; closing one from there returns there."""
    alice = make_user("alice")
    waiting = services.table_create(user=alice, room=rooms["classic"], seconds_per_turn=30)
    game = services.play_computer(user=alice, mode="rummy", level=1)
    home = client.get("/").content.decode()
    assert "Your tables" not in home and "my_tables.css" not in home  # a visitor
    client.force_login(alice)
    home = client.get("/").content.decode()
    assert "Your tables" in home and "my_tables.css" in home
    assert home.count(">Resume</a>") == 2
    assert f'href="{reverse("games:table", args=[game.pk])}"' in home
    response = client.post(reverse("games:table_close", args=[waiting.pk]), {"next": "/"})
    assert response.status_code == 302 and response.url == "/"
    assert Table.objects.get(pk=waiting.pk).status == TableStatus.ABANDONED
    home = client.get("/").content.decode()
    assert f"Table {waiting.pk} is closed." in home and home.count(">Resume</a>") == 1
    # a next off the site is not followed
    response = client.post(reverse("games:table_close", args=[game.pk]),
                           {"resign": "yes", "next": "https://example.com/"})
    assert response.url == reverse("games:lobby")
    assert "Your tables" not in client.get("/").content.decode()


def _away(table, seconds):
    Seat.objects.filter(table=table, user__isnull=False).update(
        connected=False, last_seen=timezone.now() - timedelta(seconds=seconds))


def test_a_computer_game_its_player_left_leaves_playing_now_then_the_sweep_closes_it(
        rooms, make_user):
    alice = make_user("alice")
    table = services.play_computer(user=alice, mode="classic", level=1)
    room = rooms["classic"]

    def playing_now():
        return [t["id"] for t in selectors.room_tables(room)["playing"]]

    def overview():
        return next(r for r in selectors.rooms_overview() if r["slug"] == "classic")

    assert playing_now() == [table.pk] and overview()["playing_tables"] == 1
    _away(table, 30)  # within the grace period: still playing
    assert playing_now() == [table.pk]
    _away(table, 120)  # left: not "Playing now" any more, though not closed yet
    assert playing_now() == [] and overview()["playing_tables"] == 0
    assert services.tables_sweep()["left"] == 0
    assert Table.objects.get(pk=table.pk).status == TableStatus.PLAYING
    _away(table, 2 * 24 * 3600)  # two days away: it waits for them (ten minutes ended it)
    assert services.tables_sweep()["left"] == 0
    assert Table.objects.get(pk=table.pk).status == TableStatus.PLAYING
    assert [t["id"] for t in selectors.user_live_tables(alice)] == [table.pk]
    _away(table, conf.get("COMPUTER_TABLE_LEFT") + 5)
    assert services.tables_sweep()["left"] == 1
    table.refresh_from_db()
    assert table.status == TableStatus.FINISHED
    game = Game.objects.get(table=table)
    assert (game.ending, game.loser_seat) == (Ending.ABANDONMENT, 0)
    assert game.record["forfeit"]["reason"] == Ending.ABANDONMENT
    assert services.tables_sweep()["left"] == 0


def test_the_sweep_leaves_games_of_people_who_are_here(rooms, make_user):
    alice, bob, carol = make_user("alice"), make_user("bob"), make_user("carol")
    mine = services.play_computer(user=alice, mode="classic", level=1)
    people = services.table_create(user=bob, room=rooms["classic"], seconds_per_turn=30)
    services.table_sit(table_id=people.pk, user=carol)
    _away(people, 3600)  # people only: their clocks and claims end that game, not this step
    Seat.objects.filter(table=mine).update(last_seen=timezone.now())
    assert services.tables_sweep()["left"] == 0
    assert Table.objects.get(pk=mine.pk).status == TableStatus.PLAYING
    assert Table.objects.get(pk=people.pk).status == TableStatus.PLAYING


@pytest.fixture
def reachable():
    """Who the site can reach, as social would answer (``games.hooks.reachable``)."""
    from games import hooks
    from social.presence import presence_reachable

    here: set[int] = set()

    def answer(ids):
        return here & set(ids)

    hooks.unregister_reachable(presence_reachable)
    hooks.register_reachable(answer)
    yield here
    hooks.unregister_reachable(answer)
    hooks.register_reachable(presence_reachable)


def _quiet(table, seconds):
    Table.objects.filter(pk=table.pk).update(
        updated_at=timezone.now() - timedelta(seconds=seconds))


def test_a_waiting_table_whose_people_left_the_site_is_closed(
        rooms, make_user, reachable, django_capture_on_commit_callbacks):
    """Nobody sits down to an empty chair: a waiting table whose people have been gone from
    it and from the site for GAMES_OPEN_TABLE_AWAY is cancelled, as if they had left it."""
    from games import signals

    alice, bob, carol = make_user("alice"), make_user("bob"), make_user("carol")
    away = conf.get("OPEN_TABLE_AWAY")
    assert away == 300
    rummy = services.table_create(user=alice, room=rooms["rummy"], seat_count=3,
                                  seconds_per_turn=30)
    services.table_sit(table_id=rummy.pk, user=bob)
    classic = services.table_create(user=carol, room=rooms["classic"], seconds_per_turn=30)
    left = []

    def on_left(sender, table_id, user_id, **kw):
        left.append((table_id, user_id))

    signals.player_left.connect(on_left)
    try:
        for t in (rummy, classic):
            _away(t, away + 5)
            _quiet(t, away + 5)
        reachable.update({bob.pk})  # bob has a page of the site open: the call would reach him
        with django_capture_on_commit_callbacks(execute=True):
            done = services.tables_sweep()
        assert (done["away"], done["closed"]) == (1, 0)
        assert Table.objects.get(pk=rummy.pk).status == TableStatus.OPEN
        carol_table = Table.objects.get(pk=classic.pk)
        assert carol_table.status == TableStatus.ABANDONED and carol_table.finished_at
        assert not Seat.objects.filter(table=classic, user__isnull=False).exists()
        assert left == [(classic.pk, carol.pk)]
        assert classic.pk not in [t["id"] for t in selectors.room_tables(rooms["classic"])["open"]]
        # bob closes his last page: now nobody at the Rummy table can be called
        reachable.clear()
        with django_capture_on_commit_callbacks(execute=True):
            assert services.tables_sweep()["away"] == 1
        assert Table.objects.get(pk=rummy.pk).status == TableStatus.ABANDONED
        assert sorted(left[1:]) == sorted([(rummy.pk, alice.pk), (rummy.pk, bob.pk)])
    finally:
        signals.player_left.disconnect(on_left)


def test_a_waiting_table_is_kept_while_its_people_are_at_it_or_lately_gone(
        rooms, make_user, reachable):
    alice, bob = make_user("alice"), make_user("bob")
    away = conf.get("OPEN_TABLE_AWAY")
    at_it = services.table_create(user=alice, room=rooms["classic"], seconds_per_turn=30)
    lately = services.table_create(user=bob, room=rooms["classic"], seconds_per_turn=30)
    _quiet(at_it, away + 5)
    Seat.objects.filter(table=at_it, user=alice).update(connected=True,
                                                         last_seen=timezone.now())
    _away(lately, away - 30)  # gone from everywhere, but not for long yet
    _quiet(lately, away - 30)
    assert services.tables_sweep()["away"] == 0
    assert set(Table.objects.filter(pk__in=[at_it.pk, lately.pk])
               .values_list("status", flat=True)) == {TableStatus.OPEN}
    # a table whose creator never came to it counts from its last change
    fresh = services.table_create(user=bob, room=rooms["rummy"], seat_count=3,
                                  seconds_per_turn=30)
    Seat.objects.filter(table=fresh).update(last_seen=None, connected=False)
    assert services.tables_sweep()["away"] == 0
    _quiet(fresh, away + 5)
    assert services.tables_sweep()["away"] == 1
    assert Table.objects.get(pk=fresh.pk).status == TableStatus.ABANDONED


def test_nobody_is_taken_for_gone_when_nothing_can_tell(rooms, make_user):
    """With no answer registered, or an answer that fails, every waiting table is kept (until
    GAMES_OPEN_TABLE_TTL, the stale tables' limit)."""
    from games import hooks

    alice = make_user("alice")
    table = services.table_create(user=alice, room=rooms["classic"], seconds_per_turn=30)
    _away(table, 3600)
    _quiet(table, 3600)
    from social.presence import presence_reachable

    def broken(ids):
        raise ConnectionError("the cache is down")

    hooks.unregister_reachable(presence_reachable)
    try:
        assert services.tables_sweep()["away"] == 0  # nothing registered
        hooks.register_reachable(broken)
        assert services.tables_sweep()["away"] == 0
        assert Table.objects.get(pk=table.pk).status == TableStatus.OPEN
        _quiet(table, conf.get("OPEN_TABLE_TTL") + 5)
        assert services.tables_sweep()["closed"] == 1
        assert Table.objects.get(pk=table.pk).status == TableStatus.ABANDONED
        assert not Seat.objects.filter(table=table, user__isnull=False).exists()
    finally:
        hooks.unregister_reachable(broken)
        hooks.register_reachable(presence_reachable)


def test_the_last_seat_does_not_start_a_game_against_people_long_gone(
        rooms, make_user, reachable, client, django_capture_on_commit_callbacks):
    """A third person sat at a table of three whose two people had closed it and left the
    site minutes before: the game started against empty chairs, and they waited out two
    clocks to be told "alice left the table more than a minute ago". Now the gone are taken
    out of the table, which waits on for players, and the page says so."""
    from games import signals

    alice, bob, carol = make_user("alice"), make_user("bob"), make_user("carol")
    table = services.table_create(user=alice, room=rooms["rummy"], seat_count=3,
                                  seconds_per_turn=30)
    services.table_sit(table_id=table.pk, user=bob)
    grace = conf.get("DISCONNECT_GRACE")
    Seat.objects.filter(table=table).update(
        connected=False, last_seen=timezone.now() - timedelta(seconds=grace + 5))
    reachable.update({bob.pk})  # bob is on another page of the site: a start would call him
    left = []

    def on_left(sender, table_id, user_id, **kw):
        left.append((table_id, user_id))

    signals.player_left.connect(on_left)
    client.force_login(carol)
    try:
        with django_capture_on_commit_callbacks(execute=True):
            response = client.post(reverse("games:table_sit", args=[table.pk]), {"seat": ""},
                                   follow=True)
    finally:
        signals.player_left.disconnect(on_left)
    table.refresh_from_db()
    assert table.status == TableStatus.OPEN and table.state is None
    people = dict(Seat.objects.filter(table=table).values_list("index", "user_id"))
    assert sorted(u for u in people.values() if u) == sorted([bob.pk, carol.pk])
    assert left == [(table.pk, alice.pk)]
    assert ("alice had left this table, so the game has not started"
            in response.content.decode())
    # the next person starts it: bob can be called back, and dan is here
    dan = make_user("dan")
    services.table_sit(table_id=table.pk, user=dan)
    assert Table.objects.get(pk=table.pk).status == TableStatus.PLAYING


def test_the_last_seat_starts_the_game_with_people_lately_at_the_table(rooms, make_user,
                                                                       reachable):
    """A reload, a moment away: not gone; nor is a person whose table socket is open."""
    alice, bob = make_user("alice"), make_user("bob")
    table = services.table_create(user=alice, room=rooms["classic"], seconds_per_turn=30)
    grace = conf.get("DISCONNECT_GRACE")
    Seat.objects.filter(table=table, user=alice).update(
        connected=False, last_seen=timezone.now() - timedelta(seconds=grace - 10))
    services.table_sit(table_id=table.pk, user=bob)
    assert Table.objects.get(pk=table.pk).status == TableStatus.PLAYING
    # at the table (its socket open), however long ago its last ping
    other = services.table_create(user=alice, room=rooms["classic"], seconds_per_turn=30)
    Seat.objects.filter(table=other, user=alice).update(
        connected=True, last_seen=timezone.now() - timedelta(seconds=3600))
    services.table_sit(table_id=other.pk, user=make_user("carol"))
    assert Table.objects.get(pk=other.pk).status == TableStatus.PLAYING


def test_a_person_called_back_by_the_start_has_the_grace_period_from_the_start(
        rooms, make_user, reachable):
    """An inviter waited on the contacts page for over a minute; the invitee sat down, the
    game started, and the invitee was offered "ivy left the table more than a minute ago.
    Claim the win" at once: ivy lost by abandonment (and took a fair-play strike) a game she
    never saw. Called back by the start, she has the grace period from the start."""
    from games.exceptions import GameServiceError

    ivy, jon = make_user("ivy"), make_user("jon")
    table = services.table_create(user=ivy, room=rooms["classic"], seconds_per_turn=30)
    grace = conf.get("DISCONNECT_GRACE")
    Seat.objects.filter(table=table, user=ivy).update(
        connected=False, last_seen=timezone.now() - timedelta(seconds=grace + 6))
    reachable.update({ivy.pk})  # on another page of the site: the start calls her back
    services.table_sit(table_id=table.pk, user=jon)
    table.refresh_from_db()
    assert table.status == TableStatus.PLAYING
    seat = Seat.objects.get(table=table, user=ivy)
    assert not seat.is_gone() and seat.last_seen >= table.started_at
    with pytest.raises(GameServiceError):
        services.table_claim(table_id=table.pk, user=jon)
    assert Table.objects.get(pk=table.pk).status == TableStatus.PLAYING
    # the grace over with no sign of her since the start: gone, and claimable then
    Seat.objects.filter(pk=seat.pk).update(
        last_seen=table.started_at - timedelta(seconds=1) - timedelta(seconds=grace))
    assert Seat.objects.get(pk=seat.pk).is_gone()
