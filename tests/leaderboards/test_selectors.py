"""The selectors other apps call: ratings_for and playban_until."""
from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth.models import AnonymousUser
from django.utils import timezone

from leaderboards.models import Rating
from leaderboards.ratings import selectors

pytestmark = pytest.mark.django_db


def test_ratings_for_gives_new_player_value_to_unrated(make_user):
    a, b = make_user(), make_user()
    Rating.objects.create(user=a, mode="classic", mu=1612.4, sigma=90, rating=1612,
                          provisional=False, games=12)
    assert selectors.ratings_for([a.pk, b.pk], "classic") == {a.pk: 1612, b.pk: 1500}
    assert selectors.ratings_for([a.pk], "rummy") == {a.pk: 1500}
    assert selectors.ratings_for([], "classic") == {}
    assert selectors.rating_labels([a.pk, b.pk], "classic") == {a.pk: "1612", b.pk: "1500?"}


def test_playban_until_none_then_active_then_expired(make_user):
    from leaderboards.models import Playban, PlaybanStrike
    from tests.support.records import make_game

    user = make_user()
    assert selectors.playban_until(user) is None
    assert selectors.playban_until(AnonymousUser()) is None
    now = timezone.now()
    game = make_game([user, make_user()], rated=True)
    strike = PlaybanStrike.objects.create(user=user, game=game, at=now, reason="timeout")
    ban = Playban.objects.create(user=user, strike=strike, started_at=now,
                                 until=now + timedelta(minutes=15), minutes=15)
    assert selectors.playban_until(user) == ban.until
    ban.until = now - timedelta(seconds=1)
    ban.save()
    assert selectors.playban_until(user) is None
