"""Statistics against hand-computed values on constructed games; idempotence; the finish
signal; incremental equals rebuilt over a few hundred random games."""
from __future__ import annotations

import io
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.forms.models import model_to_dict

from games.models import Ending, Game, Room
from games.rooms import ensure_default_rooms
from leaderboards.stats import services
from leaderboards.stats.models import GameFacts, Opponent, PlayerStats
from tests.support.records import T0, hand, moves_by, random_game, store_game

pytestmark = pytest.mark.django_db


def row(user, mode="classic", opponents="people"):
    return PlayerStats.objects.get(user=user, mode=mode, opponents=opponents)


@pytest.fixture
def season(people):
    """Four constructed games (see each comment for what they hold)."""
    ann, bob, cat, _ = people
    # 1: classic, ann beats bob 130-40 in 30 minutes; ann's clock ran out twice
    g1 = store_game([ann, bob], scores=[130, 40], winner=0, minutes=30, hands=[
        hand(1, "knock", 0, 20, knocker=0, knocker_deadwood=5, defender=1),
        hand(2, "undercut", 1, 27, knocker=0, knocker_deadwood=8, defender=1),
        hand(3, "gin", 0, 40, knocker=0, defender=1),
        hand(4, "drawn", None),
        hand(5, "big_gin", 1, 45, knocker=1, defender=0),
        hand(6, "knock", 1, 13, knocker=1, knocker_deadwood=3, defender=0),
    ], actions=[{"seat": 0, "source": "timeout"}, {"seat": 0, "source": "timeout"},
                {"seat": 1, "source": "player"}, {"seat": 1, "source": "bot"}])
    # 2: rummy for three, cat wins; bob resigned; cat went rummy; one stalemate
    g2 = store_game([ann, bob, cat], mode="rummy", scores=[12, 0, 60], winner=2,
                    ending=Ending.RESIGNATION, loser_seat=1, minutes=5,
                    actions=moves_by(0, 1, 2), hands=[
                        hand(1, "out", 2, 30, going_rummy=True),
                        hand(2, "stalemate", None),
                        hand(3, "out", 0, 12),
                    ])
    # 3: classic, ann beats the Hard computer
    g3 = store_game([ann, 3], scores=[150, 20], winner=0, minutes=12, hands=[
        hand(1, "gin", 0, 150, knocker=0, defender=1),
    ])
    # 4: classic, ann and bob tie 50-50 (bob's clock ran out: a timeout ending is his loss
    # only when he loses; this constructed one is a tie after a normal end)
    g4 = store_game([ann, bob], scores=[50, 50], winner=None, minutes=20, hands=[
        hand(1, "knock", 0, 50, knocker=0, knocker_deadwood=10, defender=1),
        hand(2, "knock", 1, 50, knocker=1, knocker_deadwood=0, defender=0),
    ])
    for g in (g1, g2, g3, g4):
        assert services.stats_game_record(game_id=g.pk)
    return g1, g2, g3, g4


def test_hand_facts_of_a_classic_game(people, season):
    ann, bob, *_ = people
    a = row(ann)
    assert (a.games, a.wins, a.losses, a.ties) == (2, 1, 0, 1)
    # game 1: six hands (won 1, 3; drawn 4); game 4: two hands (won 1)
    assert (a.hands_played, a.hands_won, a.hands_drawn, a.hands_lost) == (8, 3, 1, 4)
    assert (a.gins, a.big_gins) == (1, 0)
    assert a.knocks == 3 and a.knock_deadwood == 5 + 8 + 10
    assert a.average_knock_deadwood == round(23 / 3, 1)
    assert (a.undercuts_given, a.undercuts_received) == (0, 1)
    assert a.hand_points == 20 + 40 + 50 and a.points_per_hand == round(110 / 8, 1)
    assert a.best_margin == 90 and a.best_game_id == season[0].pk
    assert (a.current_streak, a.longest_streak) == (0, 1)
    assert a.seconds_played == (30 + 20) * 60
    assert a.timeout_turns == 2 and a.win_rate == 50.0
    b = row(bob)
    assert (b.games, b.wins, b.losses, b.ties) == (2, 0, 1, 1)
    assert (b.hands_won, b.gins, b.big_gins, b.knocks, b.knock_deadwood) == (4, 0, 1, 2, 3)
    assert (b.undercuts_given, b.undercuts_received) == (1, 0)
    assert b.hand_points == 27 + 45 + 13 + 50
    assert b.best_margin is None and b.timeout_turns == 0


def test_rummy_stalemate_is_a_lost_hand_for_everyone(people, season):
    ann, bob, cat, _ = people
    a, b, c = row(ann, "rummy"), row(bob, "rummy"), row(cat, "rummy")
    for r in (a, b, c):
        assert r.hands_played == 3 and r.stalemates == 1 and r.hands_drawn == 0
    assert (a.hands_won, a.hands_lost, a.hand_points, a.rummies) == (1, 2, 12, 0)
    assert (c.hands_won, c.hands_lost, c.hand_points, c.rummies) == (1, 2, 30, 1)
    assert (b.hands_won, b.hands_lost, b.resignations) == (0, 3, 1)
    assert (c.wins, a.losses, b.losses) == (1, 1, 1)
    assert c.best_margin == 48 and c.current_streak == 1


def test_overall_and_computer_buckets(people, season):
    ann, *_ = people
    overall = row(ann, "all")
    assert (overall.games, overall.wins, overall.losses, overall.ties) == (3, 1, 1, 1)
    assert overall.hands_played == 8 + 3 and overall.stalemates == 1
    # finishing order: win, loss, tie
    assert (overall.current_streak, overall.longest_streak) == (0, 1)
    hard = row(ann, "classic", "hard")
    assert (hard.games, hard.wins, hard.gins, hard.hand_points) == (1, 1, 1, 150)
    assert hard.current_streak == 1 and hard.best_margin == 130
    assert row(ann, "all", "hard").games == 1
    assert not PlayerStats.objects.filter(user=ann, opponents="easy").exists()


def test_opponents_both_ways(people, season):
    ann, bob, cat, _ = people
    ab = Opponent.objects.get(user=ann, opponent=bob)
    assert (ab.games, ab.wins, ab.losses, ab.ties) == (3, 2, 0, 1)
    ba = Opponent.objects.get(user=bob, opponent=ann)
    assert (ba.games, ba.wins, ba.losses, ba.ties) == (3, 0, 2, 1)
    ca = Opponent.objects.get(user=cat, opponent=ann)
    assert (ca.games, ca.wins) == (1, 1)


def test_ending_counters(people):
    ann, bob, *_ = people
    for ending in (Ending.TIMEOUT, Ending.ABANDONMENT, Ending.TIMEOUT):
        g = store_game([ann, bob], scores=[0, 10], winner=1, ending=ending, loser_seat=0,
                       actions=moves_by(0, 1))
        services.stats_game_record(game_id=g.pk)
    a, b = row(ann), row(bob)
    assert (a.timeouts, a.abandonments, a.resignations, a.losses) == (2, 1, 0, 3)
    assert (b.timeouts, b.abandonments, b.wins, b.current_streak) == (0, 0, 3, 3)


def test_best_game_is_the_widest_win_on_points(people):
    """A win by resignation at level scores, or from behind, has no margin to boast of: the
    profile said "Best game: won by 0" (or by a negative number)."""
    from leaderboards.stats.selectors import figures

    ann, bob, *_ = people
    for scores in ([0, 0], [10, 40]):
        g = store_game([ann, bob], scores=scores, winner=0, ending=Ending.RESIGNATION,
                       loser_seat=1, actions=moves_by(0, 1))
        services.stats_game_record(game_id=g.pk)
    a = row(ann)
    assert a.wins == 2 and a.best_margin is None and a.best_game_id is None
    assert ("Best game", "–", None) in figures(a, own=True)
    g = store_game([ann, bob], scores=[101, 100], winner=0)
    services.stats_game_record(game_id=g.pk)
    a = row(ann)
    assert a.best_margin == 1 and a.best_game_id == g.pk
    assert ("Best game", "won by 1 point", g.get_absolute_url()) in figures(a, own=True)


def test_time_played_leaves_out_long_pauses(people):
    """A game left for a day and finished later counts its play: each gap between moves up
    to five minutes (the helper's games showed 41 minutes for a few moves and the wait)."""
    ann, bob, *_ = people
    start = T0 - timedelta(days=1)
    at = [start + timedelta(seconds=s) for s in (20, 50, 50 + 86_400, 50 + 86_400 + 30)]
    g = store_game([ann, bob], scores=[10, 0], winner=0, at=at[-1] + timedelta(seconds=10),
                   minutes=1, actions=[{"seat": 0, "action": "x", "at": t.isoformat()}
                                       for t in at])
    Game.objects.filter(pk=g.pk).update(started_at=start)
    services.stats_game_record(game_id=g.pk)
    assert row(ann).seconds_played == 20 + 30 + 300 + 30 + 10


def test_a_game_counts_once(people):
    ann, bob, *_ = people
    g = store_game([ann, bob], scores=[100, 0], winner=0, hands=[hand(1, "gin", 0, 100)])
    assert services.stats_game_record(game_id=g.pk) is True
    assert services.stats_game_record(game_id=g.pk) is False
    assert row(ann).games == 1 and row(ann).gins == 1
    assert GameFacts.objects.filter(game=g).count() == 2
    assert services.stats_game_record(game_id=10 ** 9) is False


def test_bot_only_games_are_ignored(db):
    g = store_game([1, 4], scores=[100, 0], winner=0)
    assert services.stats_game_record(game_id=g.pk) is False
    assert not PlayerStats.objects.exists()


def test_the_finish_signal_counts_the_game(people, django_capture_on_commit_callbacks):
    from tests.support.tables import play_then_resign, start_table

    ann, bob, *_ = people
    ensure_default_rooms(Room)
    room = Room.objects.get(slug="classic")
    table = start_table(room, [ann, bob])
    with django_capture_on_commit_callbacks(execute=True):
        play_then_resign(table.pk, [ann, bob], 6, bob)
    assert (row(ann).wins, row(bob).losses, row(bob).resignations) == (1, 1, 1)
    assert Opponent.objects.get(user=ann, opponent=bob).wins == 1


def _snapshot():
    skip = {"id"}
    stats = sorted(
        (tuple(sorted((k, v) for k, v in model_to_dict(r).items() if k not in skip))
         for r in PlayerStats.objects.all()), key=repr)
    opps = sorted(
        (tuple(sorted((k, v) for k, v in model_to_dict(r).items() if k not in skip))
         for r in Opponent.objects.all()), key=repr)
    ledger = sorted(GameFacts.objects.values_list(
        "game_id", "user_id", "mode", "opponents", "result", "hands_played", "hand_points"))
    return stats, opps, ledger


def test_incremental_equals_rebuilt(people):
    """Three hundred random games between four people and the four computer levels, counted
    one by one as they finish, then rebuilt from scratch: the same rows. The games go to half
    their mode's target: random play is slow to score (about 1,460 moves a game to the full
    target, most of the test's time), and half still makes about 1,800 hands with every
    outcome (stalemates 220, undercuts 14)."""
    import random

    from games import engine as E

    rng = random.Random(14)
    seats = [*people, 1, 2, 3, 4]
    modes = [("classic", 2), ("straight", 2), ("oklahoma", 2), ("hollywood", 2),
             ("rummy", 2), ("rummy", 3), ("rummy", 4)]
    for i in range(300):
        mode, n = rng.choice(modes)
        players = rng.sample(seats, n)
        if all(isinstance(p, int) for p in players):
            players[0] = rng.choice(people)
        g = random_game(players, mode=mode, seed=1000 + i, at=T0 + timedelta(minutes=7 * i),
                        target=E.get_mode(mode).target_for(n) // 2)
        services.stats_game_record(game_id=g.pk)
    incremental = _snapshot()
    assert sum(r.games for r in PlayerStats.objects.filter(mode="all")) > 300
    assert PlayerStats.objects.filter(stalemates__gt=0).exists()
    assert PlayerStats.objects.filter(undercuts_received__gt=0).exists()
    assert PlayerStats.objects.filter(resignations__gt=0).exists()
    out, err = io.StringIO(), io.StringIO()
    call_command("stats_rebuild", batch=64, stdout=out, stderr=err)
    assert "Counted 300 games" in out.getvalue()
    assert "300/300 games" in err.getvalue()
    assert _snapshot() == incremental


def test_a_rebuild_holds_a_lock(people, settings):
    from django.core.cache import cache
    from django.core.management.base import CommandError

    from leaderboards.stats import tasks

    ann, bob, *_ = people
    g = store_game([ann, bob], scores=[100, 0], winner=0)
    cache.add(services.REBUILD_LOCK, 1, 60)
    try:
        with pytest.raises(CommandError, match="already running"):
            call_command("stats_rebuild", stdout=io.StringIO(), stderr=io.StringIO())
        # the task waits for the rebuild (eager Celery: the retry is raised)
        from celery.exceptions import Retry
        with pytest.raises(Retry):
            tasks.game_record.apply(args=(g.pk,), throw=True)
        assert not PlayerStats.objects.exists()
    finally:
        cache.delete(services.REBUILD_LOCK)
    assert tasks.game_record.delay(g.pk).get() is True
    assert row(ann).wins == 1


def test_private_games_are_not_in_opponents(people):
    from games.models import GamePlayer, Room, Table, TableStatus
    from games.rooms import ensure_default_rooms

    ann, bob, *_ = people
    ensure_default_rooms(Room)
    table = Table.objects.create(room=Room.objects.get(slug="classic"), mode="classic",
                                 target=100, private=True, status=TableStatus.FINISHED, seed=1)
    g = store_game([ann, bob], scores=[100, 0], winner=0, private_table=table)
    assert set(GamePlayer.objects.filter(game=g).values_list("private", flat=True)) == {True}
    services.stats_game_record(game_id=g.pk)
    # counted in their own figures, apart from the public ones ("people")
    assert row(ann, opponents="private").wins == 1 and row(bob, opponents="private").losses == 1
    assert not PlayerStats.objects.filter(opponents="people").exists()
    assert not Opponent.objects.exists()


def test_the_all_modes_row_shows_only_what_its_modes_can_hold(people):
    """A player of Basic Rummy alone read Gins, Knocks and Undercuts on their "All modes"
    tab; one of Gin alone read Going rummy and Stalemates."""
    from leaderboards.stats.selectors import stats_tables

    ann, bob, cat, _ = people
    services.stats_game_record(game_id=store_game([ann, bob], mode="rummy", scores=[100, 0],
                                                  winner=0).pk)
    services.stats_game_record(game_id=store_game([cat, bob], mode="straight",
                                                  scores=[100, 0], winner=0).pk)

    def labels(user):
        modes = stats_tables(user=user)[0]["modes"]
        return {m["mode"]: m["figures_html"] for m in modes}

    ann_all = labels(ann)["all"]
    assert "Going rummy" in ann_all and "Gins" not in ann_all and "Knocks" not in ann_all
    cat_all = labels(cat)["all"]
    assert "Gins" in cat_all and "Knocks" not in cat_all and "Going rummy" not in cat_all
    both = labels(bob)["all"]  # a straight and a rummy game: gins and going rummy, no knocks
    assert "Gins" in both and "Going rummy" in both and "Knocks" not in both


def test_a_game_ended_before_everyone_moved_counts_for_nobody(people):
    """A resignation, timeout or abandonment before every person at the game had moved
    counts nowhere (Lichess's abort), as no rating counts it: it had counted a win, a loss
    and a winning streak while the game's panel said "not rated: ended before both players
    moved" (an audit). Once everyone has moved, an early end counts as before."""
    from unittest import mock

    ann, bob, *_ = people
    resigned = {"ending": Ending.RESIGNATION, "loser_seat": 1, "winner": 0}
    aborted = [
        store_game([ann, bob], **resigned),  # nobody moved
        store_game([ann, bob], **resigned, actions=moves_by(0)),  # bob never did
        # the server's moves on bob's clock are not his
        store_game([ann, bob], winner=0, ending=Ending.TIMEOUT, loser_seat=1,
                   actions=moves_by(0) + [{"seat": 1, "source": "timeout"}] * 3),
        # against the computer: only the person's own moves are asked for
        store_game([ann, 2], winner=1, ending=Ending.ABANDONMENT, loser_seat=0,
                   actions=[{"seat": 1, "source": "bot"}]),
    ]
    for g in aborted:
        assert services.stats_game_record(game_id=g.pk) is False
    assert not PlayerStats.objects.exists() and not Opponent.objects.exists()
    played = store_game([ann, bob], **resigned, actions=moves_by(0, 1))
    assert services.stats_game_record(game_id=played.pk) is True
    assert (row(ann).wins, row(ann).current_streak, row(bob).resignations) == (1, 1, 1)
    computer = store_game([ann, 2], winner=1, ending=Ending.RESIGNATION, loser_seat=0,
                          actions=moves_by(0))
    assert services.stats_game_record(game_id=computer.pk) is True
    assert row(ann, opponents="medium").resignations == 1

    # stats.0005 counts again the figures of whoever sat at a game that ended early
    with mock.patch("leaderboards.stats.facts.aborted", return_value=False):
        for g in aborted:  # (counted, as they were before it)
            assert services.stats_game_record(game_id=g.pk) is True
    assert row(ann).games == 4
    from importlib import import_module

    from django.apps import apps

    import_module("leaderboards.stats.migrations.0005_aborted_games_count_for_nobody") \
        .recount(apps, None)
    assert (row(ann).games, row(ann).wins, row(bob).losses) == (1, 1, 1)
    assert row(ann, opponents="medium").games == 1
    assert Opponent.objects.get(user=ann, opponent=bob).games == 1
    assert not GameFacts.objects.filter(game__in=aborted).exists()
