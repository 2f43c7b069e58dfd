"""A tournament's no-show, stored before games had an ending of its own for it: the
migrations relabel those games and count their players' statistics again without them."""
from __future__ import annotations

import importlib
from datetime import timedelta
from unittest import mock

import pytest
from django.apps import apps
from django.utils import timezone

from games import services as games_services
from games.models import Ending, Game, GamePlayer
from leaderboards.stats import services as stats_services
from leaderboards.stats.models import GameFacts, Opponent, PlayerStats
from leaderboards.tournaments import services as S
from leaderboards.tournaments.models import Match
from tests.support.tables import play_then_resign
from tests.support.tournaments import create_tournament, enter_and_start, rated_players

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("rooms")]


def _as_stored_before(game: Game) -> None:
    """``game`` as a no-show was stored before: abandoned, and counted in the statistics."""
    record = dict(game.record)
    record["ending"] = "abandonment"
    record["forfeit"] = {**record["forfeit"], "reason": "abandonment"}
    record["leavers"] = [{**x, "reason": "abandonment"} for x in record["leavers"]]
    Game.objects.filter(pk=game.pk).update(ending="abandonment", record=record)
    GamePlayer.objects.filter(game=game, seat=game.loser_seat).update(left="abandonment")
    # (and counted as then: before games ended ahead of everyone's first move counted for
    # nobody, stats.0005)
    with mock.patch("leaderboards.stats.facts.aborted", return_value=False):
        assert stats_services.stats_game_record(game_id=game.pk)


def test_old_no_shows_are_relabelled_and_counted_for_nobody(make_user, staff, rooms):
    a, b, c, d = rated_players(make_user, 4)
    # a game a and b played before, which every recount must keep
    table = games_services.table_create(user=a, room=rooms["classic"])
    games_services.table_sit(table_id=table.pk, user=b)
    play_then_resign(table.pk, [a, b], 6, b)
    played = Game.objects.get(table=table)
    t = create_tournament(staff, capacity=4)
    enter_and_start(t, (a, b, c, d))
    Match.objects.filter(tournament=t).update(
        created_at=timezone.now() - timedelta(seconds=S.no_show_seconds() + 5))
    assert S.tournament_tick(tournament_id=t.pk)["no_shows"] == 2
    absent = list(Game.objects.filter(ending=Ending.NO_SHOW).order_by("pk"))
    assert len(absent) == 2
    before = {u.pk: list(PlayerStats.objects.filter(user=u).order_by("pk").values(
        "mode", "opponents", "games", "wins", "losses", "abandonments", "seconds_played"))
        for u in (a, b, c, d)}
    against = {u.pk: list(Opponent.objects.filter(user=u).values("opponent_id", "games"))
               for u in (a, b, c, d)}
    for game in absent:
        _as_stored_before(game)
    losers = {g.players.get(seat=g.loser_seat).user_id for g in absent}
    assert set(PlayerStats.objects.filter(mode="all", abandonments=1)
               .values_list("user_id", flat=True)) == losers

    importlib.import_module(
        "leaderboards.tournaments.migrations.0009_no_show_games").relabel(apps, None)
    importlib.import_module(
        "leaderboards.stats.migrations.0004_no_shows_count_for_nobody").recount(apps, None)

    for game in absent:
        game.refresh_from_db()
        assert game.ending == Ending.NO_SHOW
        assert game.record["ending"] == "no_show"
        assert game.record["forfeit"]["reason"] == "no_show"
        assert [x["reason"] for x in game.record["leavers"]] == ["no_show"]
        assert game.players.get(seat=game.loser_seat).left == Ending.NO_SHOW
        assert not GameFacts.objects.filter(game=game).exists()
    for u in (a, b, c, d):  # as if the no-shows had never been counted
        assert list(PlayerStats.objects.filter(user=u).order_by("pk").values(
            "mode", "opponents", "games", "wins", "losses", "abandonments",
            "seconds_played")) == before[u.pk]
        assert list(Opponent.objects.filter(user=u).values("opponent_id", "games")) \
            == against[u.pk]
    assert GameFacts.objects.filter(game=played).count() == 2
    assert PlayerStats.objects.get(user=b, mode="classic", opponents="people").resignations == 1
