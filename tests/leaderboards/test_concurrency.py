"""Two games of one player finishing at the same moment, rated by two workers at once: the
ledger row lock serialises them and the result is the finish-order one. PostgreSQL only
(SQLite has no row locks); CI's second pass runs it."""
from __future__ import annotations

import threading

import pytest
from django.db import connection, connections
from django.utils import timezone

from leaderboards.models import Rating, RatingChange
from leaderboards.ratings import services, skill
from tests.support.records import make_game

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.skipif("connection.vendor != 'postgresql'")
def test_simultaneous_tasks_apply_games_in_finish_order(make_user):
    a, b, c = make_user(), make_user(), make_user()
    now = timezone.now()
    g1 = make_game([a, b], places=[1, 2], finished_at=now)
    g2 = make_game([a, c], places=[2, 1], finished_at=now)
    barrier = threading.Barrier(2)
    errors = []

    def run(game_id):
        try:
            barrier.wait()
            services.game_rate(game_id=game_id)
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(g.pk,)) for g in (g2, g1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert not errors
    a1, b1 = skill.rate("classic", [skill.Skill(), skill.Skill()], [1, 2])
    a2, c2 = skill.rate("classic", [a1, skill.Skill()], [2, 1])
    r = {x.user_id: skill.Skill(x.mu, x.sigma) for x in Rating.objects.all()}
    assert r == {a.pk: a2, b.pk: b1, c.pk: c2}
    assert RatingChange.objects.count() == 4
    assert connection.vendor == "postgresql"
