"""Tournaments for the tournament services' tests: one created to start soon, rated players
(here, or away from the site), its start made due, a match resigned, an arena under way."""
from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from games import services as games_services
from leaderboards.models import Rating
from leaderboards.tournaments import services as S
from leaderboards.tournaments.models import Format, Match, Tournament
from social.models import LastSeen
from social.presence import presence_connect, presence_disconnect


def soon(minutes=5):
    return timezone.now() + timedelta(minutes=minutes)


def create_tournament(user, **kw):
    kw.setdefault("name", "Friday Cup")
    kw.setdefault("starts_at", soon())
    return S.tournament_create(user=user, **kw)


def rated_players(make_user, n, ratings=None):
    """``n`` players with classic ratings, each with a page of the site open (an arena pairs
    only those: ``here``)."""
    users = [make_user(f"p{i}") for i in range(n)]
    for i, u in enumerate(users):
        Rating.objects.create(user=u, mode="classic",
                              rating=(ratings[i] if ratings else 1500 + 10 * i))
    here(*users)
    return users


def here(*users) -> None:
    """``users`` have a page of the site open now: a live connection in the cache (what a
    process that sees the sockets goes by) and "last seen" now (what one that sees none,
    such as a cache left empty by another test, goes by)."""
    for u in users:
        presence_connect(u.pk, "tournament-test")
        LastSeen.objects.update_or_create(user=u, defaults={"at": timezone.now()})


def away(*users) -> None:
    """``users`` left the site ten minutes ago."""
    for u in users:
        presence_disconnect(u.pk, "tournament-test")
    LastSeen.objects.filter(user__in=users).update(at=timezone.now() - timedelta(minutes=10))


def make_due(t: Tournament) -> None:
    Tournament.objects.filter(pk=t.pk).update(starts_at=timezone.now() - timedelta(seconds=1))


def resign_match(match: Match, loser_id: int) -> None:
    from django.contrib.auth import get_user_model

    games_services.table_resign(table_id=match.table_id,
                                user=get_user_model().objects.get(pk=loser_id))


def enter_and_start(t: Tournament, users) -> None:
    """Every one of ``users`` enters ``t``; its start comes due and it starts."""
    for u in users:
        S.tournament_enter(tournament_id=t.pk, user=u)
    make_due(t)
    S.tournament_start(tournament_id=t.pk)


def started_arena(make_user, staff):
    """A 30-minute arena of four players, started (two matches playing)."""
    players = rated_players(make_user, 4)
    t = create_tournament(staff, format=Format.ARENA, duration_minutes=30, capacity=10, target=50)
    enter_and_start(t, players)
    return t, players
