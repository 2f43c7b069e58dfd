"""Statistics of players, kept incrementally from finished games.

``PlayerStats`` holds one row of counters per (user, mode, opponents): ``mode`` is a game
mode or ``all``; ``opponents`` is ``people`` (every other seat a person) or a computer level
(``easy`` ... ``expert``: the strongest computer at the table), or ``private`` (a game at a
private table, whoever sat there: shown to the player alone, docs/stats.md). ``GameFacts`` is
one row per (game, user): what the game meant for that player. It is the ledger that makes the
update idempotent (a game already in it is not counted again) and the source of the charts.
``Opponent`` counts each pair of people who met (favourite opponents, head to head).
"""
from __future__ import annotations

from django.conf import settings
from django.db import models

from games.bots.levels import LEVEL_TABLE
from games.models import Game

ALL_MODES = "all"
PEOPLE = "people"
PRIVATE = "private"
BOT_KINDS = tuple(level.key for level in LEVEL_TABLE)
OPPONENT_KINDS = (PEOPLE, PRIVATE, *BOT_KINDS)


class Result(models.TextChoices):
    WIN = "win", "Won"
    LOSS = "loss", "Lost"
    TIE = "tie", "Tied"


class ResultCounts(models.Model):
    """Games counted by their result, and when the last one finished: a ``PlayerStats``
    bucket's and an ``Opponent`` pair's (``facts.count_result`` counts one game)."""

    games = models.PositiveIntegerField(default=0)
    wins = models.PositiveIntegerField(default=0)
    losses = models.PositiveIntegerField(default=0)
    ties = models.PositiveIntegerField(default=0)
    last_game_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        abstract = True


class PlayerStats(ResultCounts):
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                             related_name="stats_rows")
    mode = models.CharField(max_length=16)
    opponents = models.CharField(max_length=8)

    hands_played = models.PositiveIntegerField(default=0)
    hands_won = models.PositiveIntegerField(default=0)
    hands_drawn = models.PositiveIntegerField(default=0)  # gin: drawn hands (nobody scores)
    stalemates = models.PositiveIntegerField(default=0)  # rummy: a loss for every player
    gins = models.PositiveIntegerField(default=0)
    big_gins = models.PositiveIntegerField(default=0)
    knocks = models.PositiveIntegerField(default=0)  # knocks short of gin (won or undercut)
    knock_deadwood = models.PositiveIntegerField(default=0)  # summed over those knocks
    undercuts_given = models.PositiveIntegerField(default=0)
    undercuts_received = models.PositiveIntegerField(default=0)
    rummies = models.PositiveIntegerField(default=0)  # going rummy
    hand_points = models.IntegerField(default=0)  # points scored in hands (before bonuses)
    best_margin = models.IntegerField(null=True, blank=True)
    best_game = models.ForeignKey(Game, null=True, blank=True, on_delete=models.SET_NULL,
                                  related_name="+")
    current_streak = models.PositiveIntegerField(default=0)
    longest_streak = models.PositiveIntegerField(default=0)
    seconds_played = models.PositiveIntegerField(default=0)
    resignations = models.PositiveIntegerField(default=0)
    timeouts = models.PositiveIntegerField(default=0)  # games lost on time
    abandonments = models.PositiveIntegerField(default=0)
    timeout_turns = models.PositiveIntegerField(default=0)  # turns the server played for them

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "mode", "opponents"],
                                    name="stats_unique_bucket"),
        ]

    def __str__(self):
        return f"{self.user_id} {self.mode}/{self.opponents}"

    # Derived figures (None when there is nothing to divide by).
    @property
    def win_rate(self):
        return round(100 * self.wins / self.games, 1) if self.games else None

    @property
    def hand_win_rate(self):
        return round(100 * self.hands_won / self.hands_played, 1) if self.hands_played else None

    @property
    def hands_lost(self):
        return self.hands_played - self.hands_won - self.hands_drawn

    @property
    def average_knock_deadwood(self):
        return round(self.knock_deadwood / self.knocks, 1) if self.knocks else None

    @property
    def points_per_hand(self):
        return round(self.hand_points / self.hands_played, 1) if self.hands_played else None


class GameFacts(models.Model):
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="+")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                             related_name="+")
    mode = models.CharField(max_length=16)
    opponents = models.CharField(max_length=8)
    finished_at = models.DateTimeField()
    result = models.CharField(max_length=4, choices=Result.choices)
    hands_played = models.PositiveIntegerField(default=0)
    hand_points = models.IntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["game", "user"], name="stats_facts_unique"),
        ]
        indexes = [models.Index(fields=["user", "finished_at"], name="stats_facts_user_time")]


class Opponent(ResultCounts):
    """``user``'s record against another person (each pair is stored both ways)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                             related_name="+")
    opponent = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                                 related_name="+")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "opponent"], name="stats_opponent_unique"),
        ]
        indexes = [models.Index(fields=["user", "-games"], name="stats_opponent_top")]
