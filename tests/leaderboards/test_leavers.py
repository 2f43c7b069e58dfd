"""Ratings and statistics of a game of four that went on after a person resigned: the leaver
is last in the rating update and their statistics count a resignation and a loss; a leaver
who had not made a move of their own is not rated, and the others are."""
from __future__ import annotations

import pytest
from django.test import Client

from games import hooks, services
from games.models import Ending, Game, Table
from leaderboards.models import Rating, RatingChange
from leaderboards.ratings import services as ratings
from leaderboards.stats.models import PlayerStats
from tests.support.tables import play_one, play_to_the_end, rated_table, state_of

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_leaver_is_rated_last_and_counted_as_resigning(rooms, make_user):
    people = [make_user(n) for n in ("alice", "bob", "cleo", "dan")]
    alice = people[0]
    # fixed deals (seed): a random one ran from one hand to many (up to 38 s); so below
    table = rated_table(rooms, people, mode="rummy-3-4", seed=2)
    services.table_resign(table_id=table.pk, user=alice)
    game = play_to_the_end(table.pk, dict(enumerate(people)))
    assert game.ending == Ending.NORMAL and game.rated
    changes = {c.user_id: c for c in RatingChange.objects.filter(game=game)}
    assert set(changes) == {p.pk for p in people}
    assert changes[alice.pk].place == 4
    assert changes[alice.pk].mu_after < changes[alice.pk].mu_before
    assert all(changes[p.pk].place < 4 for p in people[1:])
    stats = PlayerStats.objects.get(user=alice, mode="rummy", opponents="people")
    assert (stats.games, stats.losses, stats.resignations) == (1, 1, 1)
    # only what alice played counts as hers: she left in the first hand, and the hands the
    # computer then won in her seat are not her hands, wins, points or rummies
    assert any(h.get("winner") == 0 for h in game.hands)
    assert (stats.hands_played, stats.hands_won, stats.hand_points, stats.rummies) == (
        0, 0, 0, 0)
    for p in people[1:]:
        row = PlayerStats.objects.get(user=p, mode="rummy", opponents="people")
        assert row.resignations == 0 and row.hands_played == len(game.hands)
        assert row.seconds_played >= stats.seconds_played
    # her list of games says how she left, not how the game that went on ended (a game later
    # ended on someone else's time read "Lost · timeout" for her, an outside audit)
    client = Client()
    client.force_login(alice)
    listing = " ".join(client.get("/games/").content.decode().split())
    assert "Lost · resignation</td>" in listing


def test_a_leaver_who_timed_out_gets_a_fair_play_strike(rooms, make_user):
    from datetime import timedelta

    from django.utils import timezone

    from games import conf, states
    from games.models import Seat
    from leaderboards.models import PlaybanStrike

    people = [make_user(n) for n in ("alice", "bob", "cleo")]
    table = rated_table(rooms, people, mode="rummy-3-4", seed=2)
    seat = states.load(Table.objects.get(pk=table.pk).state).to_act
    Seat.objects.filter(table=table, index=seat).update(timeouts=conf.get("MAX_TIMEOUTS") - 1)
    Table.objects.filter(pk=table.pk).update(turn_deadline=timezone.now() - timedelta(seconds=5))
    assert services.table_timeout(table_id=table.pk) is True
    game = play_to_the_end(table.pk, dict(enumerate(people)))
    assert game.ending == Ending.NORMAL
    strikes = list(PlaybanStrike.objects.filter(game=game).values_list("user_id", "reason"))
    assert strikes == [(people[seat].pk, "timeout")]


def _seated_without_moves(rooms, people, seed):
    """A rated table of ``people`` (seat i is people[i]) where nobody has moved yet, and the
    first seat to act: a person other than that one can leave before their first move."""
    table = services.table_create(user=people[0], room=rooms["rummy-3-4"], rated=True,
                                  seat_count=len(people))
    Table.objects.filter(pk=table.pk).update(seed=seed)
    for u in people[1:]:
        services.table_sit(table_id=table.pk, user=u)
    return table, state_of(table.pk).to_act


def test_a_leaver_who_never_moved_is_not_rated_and_the_others_are(rooms, make_user):
    """As a game of two that ends before both moved is not rated (an abort), a person who
    leaves a game of three before a move of their own is not rated for it; the two who
    played it to the end are, by their places. Before, the leaver was rated last."""
    people = [make_user(n) for n in ("alice", "bob", "cleo")]
    table, first = _seated_without_moves(rooms, people, seed=11)
    leaver = people[(first + 1) % 3]  # not the first to act: no move of theirs yet
    services.table_resign(table_id=table.pk, user=leaver)
    game = play_to_the_end(table.pk, dict(enumerate(people)))
    assert game.ending == Ending.NORMAL and game.rated
    assert hooks.unrated_reasons([game]) == {}
    changes = {c.user_id: c.place for c in RatingChange.objects.filter(game=game)}
    assert set(changes) == {p.pk for p in people if p != leaver}
    assert all(place < 3 for place in changes.values())
    assert not Rating.objects.filter(user=leaver, games__gt=0).exists()
    # still counted as resigning in their statistics, and placed last in the game
    stats = PlayerStats.objects.get(user=leaver, mode="rummy", opponents="people")
    assert (stats.games, stats.losses, stats.resignations) == (1, 1, 1)
    assert game.players.get(user=leaver).place == 3
    # the game's page says so, where the others have their change
    client = Client()
    client.force_login(people[0])
    page = " ".join(client.get(game.get_absolute_url()).content.decode().split())
    assert page.count("rating this game") == 2
    assert "not rated in this game: left before a move of their own" in page
    # and their list of games, where the game is rated for the others
    client.force_login(leaver)
    listed = " ".join(client.get(f"/u/{leaver.username}/games/").content.decode().split())
    assert "not rated: left before a move of their own" in listed
    # the rebuild from the stored games reads the same rule (it loads the moves of a game
    # somebody left, not only of one that ended early)
    before = sorted(RatingChange.objects.values_list("user_id", "place", "mu_after"))
    ratings.ratings_rebuild()
    assert sorted(RatingChange.objects.values_list("user_id", "place", "mu_after")) == before


def test_a_later_forfeit_does_not_void_a_game_that_an_unmoved_leaver_left(rooms, make_user):
    """A game of three that one person left before moving, then another resigned after
    playing: it ended early, but everybody still counted had moved, so it is rated for the
    two who played (before, the first leaver's missing move voided it: resigning then cost
    the second leaver nothing)."""
    people = [make_user(n) for n in ("alice", "bob", "cleo")]
    table, first = _seated_without_moves(rooms, people, seed=2)
    leaver = people[(first + 1) % 3]
    services.table_resign(table_id=table.pk, user=leaver)
    stayed = [p for p in people if p != leaver]
    by_seat = dict(enumerate(people))
    seats_moved: set[int] = set()
    while not {people.index(p) for p in stayed} <= seats_moved:
        seats_moved.add(state_of(table.pk).to_act)
        play_one(table.pk, by_seat)
    services.table_resign(table_id=table.pk, user=stayed[1])
    game = Game.objects.get(table_id=table.pk)
    assert game.ending == Ending.RESIGNATION and game.rated
    assert hooks.unrated_reasons([game]) == {}
    changes = {c.user_id: c for c in RatingChange.objects.filter(game=game)}
    assert set(changes) == {p.pk for p in stayed}
    assert changes[stayed[0].pk].mu_after > changes[stayed[0].pk].mu_before
    assert changes[stayed[1].pk].mu_after < changes[stayed[1].pk].mu_before
