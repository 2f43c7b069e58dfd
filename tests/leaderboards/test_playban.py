"""Fair play: strikes for abandoned or timed-out rated games, the escalating bar, and its
enforcement by the games services (sit, create, rematch) through games.hooks."""
from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from games import services as games_services
from games.exceptions import SeatRefused
from games.models import Ending
from leaderboards.models import Playban, PlaybanStrike, Rating
from leaderboards.ratings import conf, selectors, services
from tests.support.records import make_game

pytestmark = pytest.mark.django_db


def _strike(user, other, at, ending=Ending.TIMEOUT, rated=True):
    g = make_game([user, other], ending=ending, loser_seat=0, places=[2, 1], finished_at=at,
                  rated=rated)
    return services.playban_record(game_id=g.pk), g


def test_the_ladder_escalates_within_the_window(make_user):
    user, other = make_user(), make_user()
    start = timezone.now() - timedelta(hours=6)
    minutes = []
    for i in range(6):
        ban, _ = _strike(user, other, start + timedelta(hours=i),
                         Ending.ABANDONMENT if i % 2 else Ending.TIMEOUT)
        minutes.append(ban.minutes if ban else 0)
    assert minutes == [0, 15, 60, 180, 24 * 60, 24 * 60]
    assert PlaybanStrike.objects.filter(user=user).count() == 6
    last = Playban.objects.filter(user=user).order_by("-until").first()
    assert last.until == last.started_at + timedelta(hours=24)
    assert selectors.playban_until(user) == last.until
    assert selectors.playban_until(other) is None


def test_old_strikes_fall_out_of_the_window(make_user):
    user, other = make_user(), make_user()
    _strike(user, other, timezone.now() - conf.playban_window() - timedelta(hours=1))
    ban, _ = _strike(user, other, timezone.now())
    assert ban is None  # the old strike no longer counts: a warning only


def test_strike_is_recorded_once_and_only_for_rated_timeouts_and_abandonments(make_user):
    user, other = make_user(), make_user()
    now = timezone.now()
    _strike(user, other, now - timedelta(minutes=5))
    ban, game = _strike(user, other, now)
    assert ban.minutes == 15
    assert services.playban_record(game_id=game.pk) == ban  # twice: same ban, no new strike
    assert PlaybanStrike.objects.filter(user=user).count() == 2
    for ending, rated in ((Ending.RESIGNATION, True), (Ending.NORMAL, True),
                          (Ending.TIMEOUT, False)):
        assert _strike(user, other, now, ending, rated)[0] is None
    assert PlaybanStrike.objects.filter(user=user).count() == 2


def _ban(user, minutes=15):
    g = make_game([user, user.__class__.objects.exclude(pk=user.pk).first()], rated=True)
    strike = PlaybanStrike.objects.create(user=user, game=g, at=timezone.now(), reason="timeout")
    return Playban.objects.create(user=user, strike=strike, started_at=timezone.now(),
                                  until=timezone.now() + timedelta(minutes=minutes),
                                  minutes=minutes)


def test_a_barred_player_cannot_sit_create_or_rematch_rated_tables(rooms, make_user):
    creator, barred = make_user(), make_user()
    table = games_services.table_create(user=creator, room=rooms["classic"], rated=True)
    _ban(barred, 15)
    with pytest.raises(SeatRefused) as err:
        games_services.table_sit(table_id=table.pk, user=barred)
    assert "15 minutes" in err.value.message
    assert err.value.code == "seat_refused"
    with pytest.raises(SeatRefused):
        games_services.table_create(user=barred, room=rooms["classic"], rated=True)
    assert not table.seats.filter(user=barred).exists()
    # casual tables stay open to them
    casual = games_services.table_create(user=creator, room=rooms["straight"], rated=False)
    games_services.table_sit(table_id=casual.pk, user=barred)
    # and a rated rematch is refused once barred
    other = make_user()
    rated = games_services.table_create(user=creator, room=rooms["classic"], rated=True)
    games_services.table_sit(table_id=rated.pk, user=other)
    games_services.table_resign(table_id=rated.pk, user=other)
    _ban(other, 60)
    with pytest.raises(SeatRefused):
        games_services.table_rematch(table_id=rated.pk, user=other)


def test_rating_range_refuses_players_outside_it(rooms, make_user):
    creator, close, far = make_user(), make_user(), make_user()
    Rating.objects.create(user=creator, mode="classic", rating=1600, mu=1600, sigma=90,
                          provisional=False, games=30)
    Rating.objects.create(user=close, mode="classic", rating=1750, mu=1750, sigma=90,
                          provisional=False, games=30)
    Rating.objects.create(user=far, mode="classic", rating=1850, mu=1850, sigma=90,
                          provisional=False, games=30)
    table = games_services.table_create(user=creator, room=rooms["classic"], rated=True,
                                        rating_range=200)
    assert table.rating_range == 200
    with pytest.raises(SeatRefused) as err:
        games_services.table_sit(table_id=table.pk, user=far)
    assert err.value.message == (
        "This table is for players rated 1400 to 1800 in Classic Gin; your rating is 1850.")
    assert table.seats.filter(user=far).count() == 0
    games_services.table_sit(table_id=table.pk, user=close)  # 1750 is within 1600 ± 200


def test_a_rooms_list_says_who_may_sit_and_offers_join_only_to_them(rooms, make_user):
    """A ±200 table's row looked like any other, with Join for everyone: a player rated
    outside the range pressed it and was refused. The row now says the range, and only a
    player in it gets Join."""
    from django.test import Client

    creator, close, far = make_user(), make_user(), make_user()
    for user, rating in ((creator, 1600), (close, 1750), (far, 1850)):
        Rating.objects.create(user=user, mode="classic", rating=rating, mu=rating, sigma=90,
                              provisional=False, games=30)
    table = games_services.table_create(user=creator, room=rooms["classic"], rated=True,
                                        rating_range=200)
    open_to_all = games_services.table_create(user=make_user(), room=rooms["classic"],
                                              rated=True)
    join = f'action="/tables/{table.pk}/sit/"'

    def seen_by(user):
        client = Client()
        if user is not None:
            client.force_login(user)
        rows = {t["id"]: t for t in client.get("/play/classic/tables.json").json()["open"]}
        return rows, client.get("/play/classic/").content.decode()

    rows, page = seen_by(far)
    assert rows[table.pk]["range"] == {"low": 1400, "high": 1800, "fits": False}
    assert rows[table.pk]["can_join"] is False and rows[open_to_all.pk]["can_join"] is True
    assert rows[open_to_all.pk]["range"] is None
    assert "for 1400 to 1800" in page and "Your rating is outside this table" in page
    assert join not in page and f'action="/tables/{open_to_all.pk}/sit/"' in page
    rows, page = seen_by(close)
    assert rows[table.pk]["range"]["fits"] is True and rows[table.pk]["can_join"] is True
    assert join in page and "Your rating is outside" not in page
    rows, page = seen_by(None)
    assert rows[table.pk]["range"] == {"low": 1400, "high": 1800, "fits": None}
    assert "for 1400 to 1800" in page and join not in page
    rows, _ = seen_by(creator)
    assert rows[table.pk]["range"]["fits"] is True


def test_a_new_player_is_1500_for_the_range(rooms, make_user):
    creator, newcomer = make_user(), make_user()
    Rating.objects.create(user=creator, mode="oklahoma", rating=1800, mu=1800, sigma=90,
                          provisional=False, games=30)
    table = games_services.table_create(user=creator, room=rooms["oklahoma"], rated=True,
                                        rating_range=100)
    with pytest.raises(SeatRefused):
        games_services.table_sit(table_id=table.pk, user=newcomer)


@pytest.mark.parametrize("kwargs", [
    {"rated": False, "rating_range": 200},
    {"rated": True, "rating_range": 10},
    {"rated": True, "rating_range": 5000},
])
def test_bad_rating_ranges_are_refused(rooms, make_user, kwargs):
    from games.exceptions import InvalidSettings
    from games.models import Table

    with pytest.raises(InvalidSettings):
        games_services.table_create(user=make_user(), room=rooms["classic"], **kwargs)
    assert not Table.objects.exists()


def test_create_form_offers_and_checks_the_range(rooms, make_user, client):
    from games.models import Table

    user = make_user()
    client.force_login(user)
    page = client.get(rooms["classic"].get_absolute_url())
    assert b'name="rating_range"' in page.content
    bad = client.post(f"/play/{rooms['classic'].slug}/new/",
                      {"seats": "2", "seconds_per_turn": "30", "rating_range": "200"})
    assert bad.status_code == 400 and b"only for rated games" in bad.content
    assert not Table.objects.exists()
    ok = client.post(f"/play/{rooms['classic'].slug}/new/",
                     {"seats": "2", "seconds_per_turn": "30", "rated": "on",
                      "rating_range": "300"})
    assert ok.status_code == 302
    assert Table.objects.get().rating_range == 300


def test_the_banner_shows_the_time_left(make_user, client):
    user = make_user()
    make_user()
    _ban(user, 45)
    client.force_login(user)
    page = client.get("/")
    assert b"Rated play paused" in page.content
    assert b"in 45 minutes" in page.content
