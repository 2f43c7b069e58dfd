"""Ratings, their history, leaderboard snapshots and playbans.

``Rating`` is a player's current rating in one mode (``mu``/``sigma`` from ``skill``; the shown
number and the provisional flag are stored beside them so lists sort and filter on an index).
``RatingChange`` is one row per rated game and player: the history behind the profile chart and
the "+12" on the game page, and the idempotence key of the rating task (unique per game and
user). ``ModeLedger`` is one row per mode, locked while a game is rated so games of one mode are
applied one at a time in finish order. ``LeaderboardEntry`` rows are the snapshot the beat job
computes; ``LeaderboardRun`` says when. ``PlaybanStrike`` is one abandoned or timed-out rated game,
``Playban`` a bar from rated tables.
"""
from __future__ import annotations

from django.conf import settings
from django.db import models

from games.models import Game, Mode

from .ratings import skill


class Rating(models.Model):
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="ratings"
    )
    mode = models.CharField(max_length=16, choices=Mode.choices)
    mu = models.FloatField(default=skill.MU)
    sigma = models.FloatField(default=skill.SIGMA)
    rating = models.IntegerField(default=skill.display(skill.Skill()))
    deviation = models.IntegerField(default=skill.deviation(skill.Skill()))
    provisional = models.BooleanField(default=True)
    games = models.PositiveIntegerField(default=0)
    last_game_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "mode"], name="rating_unique_user_mode"),
        ]

    def __str__(self):
        return f"{self.user_id} {self.mode} {self.label}"

    @property
    def skill(self) -> skill.Skill:
        return skill.Skill(self.mu, self.sigma)

    @property
    def label(self) -> str:
        return skill.label(self.rating, self.provisional)


class RatingChange(models.Model):
    """One player's rating before and after one rated game."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="rating_changes")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="rating_changes"
    )
    mode = models.CharField(max_length=16, choices=Mode.choices)
    seat = models.PositiveSmallIntegerField()
    place = models.PositiveSmallIntegerField()
    mu_before = models.FloatField()
    sigma_before = models.FloatField()
    mu_after = models.FloatField()
    sigma_after = models.FloatField()
    rating_before = models.IntegerField()
    rating_after = models.IntegerField()
    provisional = models.BooleanField(default=False)  # after the game
    finished_at = models.DateTimeField()

    class Meta:
        ordering = ["finished_at", "game_id"]
        constraints = [
            models.UniqueConstraint(fields=["game", "user"], name="ratingchange_unique_game_user"),
        ]
        indexes = [
            models.Index(fields=["user", "mode", "finished_at"], name="ratingchange_history"),
            models.Index(fields=["mode", "finished_at"], name="ratingchange_mode_time"),
        ]

    def __str__(self):
        return f"{self.game_id} {self.user_id} {self.delta:+d}"

    @property
    def delta(self) -> int:
        return self.rating_after - self.rating_before


class ModeLedger(models.Model):
    """One row per mode, locked (``select_for_update``) while a game of the mode is rated."""

    mode = models.CharField(max_length=16, choices=Mode.choices, primary_key=True)
    games_rated = models.PositiveIntegerField(default=0)

    def __str__(self):
        return self.mode


class Period(models.TextChoices):
    ALL = "all", "Top rated"
    WEEK = "week", "Best gains this week"
    MONTH = "month", "Best gains this month"


# how far back each best-gains board looks (the boards and what they tell a missing player)
GAIN_DAYS = {Period.WEEK: 7, Period.MONTH: 30}


class Pool(models.TextChoices):
    """Whose board: people's and bots' ratings never mix (docs/ratings.md, "Bots")."""
    PEOPLE = "people", "People"
    BOTS = "bots", "Bots"


def board_key(period: str, country: str = "", pool: str = Pool.PEOPLE) -> str:
    """The key of a board's row count in ``LeaderboardRun.counts``: ``all``, ``all:FR``;
    the bots' boards carry a ``bots/`` prefix (``bots/all``, ``bots/week:FR``)."""
    key = f"{period}:{country}" if country else period
    return key if pool == Pool.PEOPLE else f"{pool}/{key}"


class LeaderboardRun(models.Model):
    """One computation of the snapshot of a mode (the page says when)."""

    mode = models.CharField(max_length=16, choices=Mode.choices, primary_key=True)
    computed_at = models.DateTimeField()
    players = models.PositiveIntegerField(default=0)
    # Rows per board: {"all": 812, "week": 40, "all:FR": 33, ...} (pages and country lists
    # without a count query).
    counts = models.JSONField(default=dict)

    def count(self, period: str, country: str = "", pool: str = Pool.PEOPLE) -> int:
        return int(self.counts.get(board_key(period, country, pool), 0))

    def countries(self, period: str, pool: str = Pool.PEOPLE) -> list[str]:
        prefix = board_key(period, "", pool) + ":"
        return sorted(k[len(prefix):] for k in self.counts if k.startswith(prefix))

    def __str__(self):
        return f"{self.mode} @ {self.computed_at}"


class LeaderboardEntry(models.Model):
    """One row of a leaderboard snapshot: rank ``rank`` of ``period`` in ``mode``, on the
    people's or the bots' board (``pool``: a user is on one pool's boards only).

    The country is copied so the country filter is the same one indexed query; ``country_rank``
    is the rank among players of that country. Ties share a rank (1, 2, 2, 4).
    """

    mode = models.CharField(max_length=16, choices=Mode.choices)
    period = models.CharField(max_length=8, choices=Period.choices)
    pool = models.CharField(max_length=8, choices=Pool.choices, default=Pool.PEOPLE)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    # Copied at computation, so a page is one query without a join.
    username = models.CharField(max_length=150)
    name = models.CharField(max_length=150)
    rank = models.PositiveIntegerField()
    position = models.PositiveIntegerField()  # 1..n without gaps: the page's order
    country = models.CharField(max_length=2, blank=True)
    country_rank = models.PositiveIntegerField()
    country_position = models.PositiveIntegerField()
    rating = models.IntegerField()
    gain = models.IntegerField(default=0)  # the period's gain (week and month boards)
    games = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["mode", "period", "user"],
                                    name="leaderboard_unique_user"),
        ]
        indexes = [
            models.Index(fields=["mode", "pool", "period", "position"],
                         name="leaderboard_pool_page"),
            models.Index(fields=["mode", "pool", "period", "country", "country_position"],
                         name="leaderboard_pool_country_page"),
        ]

    def __str__(self):
        return f"{self.mode}/{self.period} #{self.rank} {self.user_id}"


class PlaybanStrike(models.Model):
    """A rated game the user abandoned or timed out of."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="+")
    at = models.DateTimeField()
    reason = models.CharField(max_length=12)  # the game's ending: timeout or abandonment

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "game"], name="playbanstrike_unique_game"),
        ]
        indexes = [models.Index(fields=["user", "at"], name="playbanstrike_user_at")]

    def __str__(self):
        return f"{self.user_id} {self.reason} @ {self.at}"


class Playban(models.Model):
    """The user may not sit at rated tables from ``started_at`` to ``until``."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    strike = models.OneToOneField(PlaybanStrike, on_delete=models.CASCADE, related_name="ban")
    started_at = models.DateTimeField()
    until = models.DateTimeField()
    minutes = models.PositiveIntegerField()

    class Meta:
        indexes = [models.Index(fields=["user", "until"], name="playban_user_until")]

    def __str__(self):
        return f"{self.user_id} until {self.until}"
