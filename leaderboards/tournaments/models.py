"""Tournaments: the event, its entries, its matches, and staff schedules that repeat.

A ``Tournament`` is created by a player (or by a ``TournamentSchedule`` through Celery beat),
takes entries until ``starts_at``, then runs: its matches are ``Match`` rows, each played as
one game at a table opened through ``games.services.table_create_for_players``. ``version``
grows with every change the page shows (entries, pairings, results), so the page's live
endpoint answers "nothing new" cheaply.
"""
from __future__ import annotations

import re

from django.conf import settings
from django.db import models
from django.urls import reverse
from django.utils import timezone

from games.models import Mode


class Format(models.TextChoices):
    SINGLE = "single", "Single elimination"
    DOUBLE = "double", "Double elimination"
    SWISS = "swiss", "Swiss"
    ROBIN = "robin", "Round robin"
    ARENA = "arena", "Arena"


class Status(models.TextChoices):
    SCHEDULED = "scheduled", "Upcoming"
    RUNNING = "running", "In progress"
    FINISHED = "finished", "Finished"
    CANCELLED = "cancelled", "Cancelled"


class TournamentSchedule(models.Model):
    """A staff-made tournament that repeats: beat creates each edition ahead of its start."""

    name = models.CharField(max_length=80)
    mode = models.CharField(max_length=16, choices=Mode.choices, default=Mode.CLASSIC)
    format = models.CharField(max_length=8, choices=Format.choices, default=Format.ARENA)
    target = models.PositiveIntegerField(null=True, blank=True)
    capacity = models.PositiveIntegerField(default=100)
    rounds = models.PositiveSmallIntegerField(null=True, blank=True)
    duration_minutes = models.PositiveSmallIntegerField(null=True, blank=True)
    seconds_per_turn = models.PositiveSmallIntegerField(default=30)
    every_hours = models.PositiveSmallIntegerField(default=1)
    # Entries to an edition open this long before its start; the edition itself is listed as
    # soon as the previous one has started (services.schedules_run).
    entry_minutes = models.PositiveSmallIntegerField(default=30)
    next_start = models.DateTimeField()
    active = models.BooleanField(default=True)

    class Meta:
        ordering = ["next_start"]

    def __str__(self):
        return self.name


CANCEL_REASON_MAX = 200  # a longer reason is refused (services.lifecycle), never cut off


class EndedEarly(models.TextChoices):
    """Why a Swiss ended before its last round: its next round could not be paired."""
    REMATCHES = "rematches", "every pairing left was a rematch"
    PLAYERS = "players", "fewer than two players were left"


class Tournament(models.Model):
    name = models.CharField(max_length=80)
    mode = models.CharField(max_length=16, choices=Mode.choices)
    format = models.CharField(max_length=8, choices=Format.choices)
    # Points to win one match (one game); the mode's own target when created empty.
    target = models.PositiveIntegerField()
    capacity = models.PositiveIntegerField()
    rounds = models.PositiveSmallIntegerField(null=True, blank=True)  # Swiss
    # a Swiss whose rounds were cut at the start (fewer players came) or that ended early
    # (``ended_early``): the rounds set
    rounds_set = models.PositiveSmallIntegerField(null=True, blank=True)
    # a Swiss that ended before its last round, and why (``EndedEarly``); "" otherwise
    ended_early = models.CharField(max_length=12, blank=True, default="",
                                   choices=[("", "")] + EndedEarly.choices)
    duration_minutes = models.PositiveSmallIntegerField(null=True, blank=True)  # arena
    seconds_per_turn = models.PositiveSmallIntegerField(default=30)
    rated = models.BooleanField(default=True)
    starts_at = models.DateTimeField(db_index=True)
    entry_opens_at = models.DateTimeField()
    rating_min = models.PositiveIntegerField(null=True, blank=True)
    rating_max = models.PositiveIntegerField(null=True, blank=True)
    private = models.BooleanField(default=False)
    invite_token = models.CharField(max_length=32, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
        related_name="created_tournaments",
    )
    schedule = models.ForeignKey(
        TournamentSchedule, null=True, blank=True, on_delete=models.SET_NULL,
        related_name="editions",
    )
    status = models.CharField(max_length=10, choices=Status.choices,
                              default=Status.SCHEDULED, db_index=True)
    cancel_reason = models.CharField(max_length=CANCEL_REASON_MAX, blank=True)
    round = models.PositiveSmallIntegerField(default=0)
    started_at = models.DateTimeField(null=True, blank=True)
    ends_at = models.DateTimeField(null=True, blank=True)  # arena
    finished_at = models.DateTimeField(null=True, blank=True)
    winner = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
        related_name="+",
    )
    version = models.PositiveIntegerField(default=1)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["starts_at", "id"]
        constraints = [
            models.UniqueConstraint(fields=["schedule", "starts_at"],
                                    name="tournament_one_edition_per_start"),
            # a private tournament's games are casual, as every private game
            models.CheckConstraint(condition=~(models.Q(private=True) & models.Q(rated=True)),
                                   name="tournament_private_is_casual"),
        ]

    def __str__(self):
        return self.name

    def get_absolute_url(self):
        return reverse("tournaments:detail", kwargs={"tournament_id": self.pk})

    @property
    def entries_open(self) -> bool:
        """Entries have opened (a scheduled tournament takes them until its start)."""
        return self.entry_opens_at <= timezone.now()

    @property
    def format_note(self) -> str:
        """The format's name beside the tournament's, or "" where the name says it already
        ("Hourly Classic Arena" read "Hourly Classic Arena Arena")."""
        label = str(self.get_format_display())
        # (whole words: "Swissquote Cup" does not say Swiss)
        said = re.search(rf"\b{re.escape(label)}\b", self.name, re.IGNORECASE)
        return "" if said else label

    @property
    def is_elimination(self) -> bool:
        return self.format in (Format.SINGLE, Format.DOUBLE)


class OutReason(models.TextChoices):
    """Why a player left a running tournament (``Entry.out_reason``)."""

    NONE = "", "—"
    WITHDREW = "withdrew", "you withdrew"
    ABSENT = "absent", "you did not come to a match"
    BANNED = "banned", "you were barred from rated play"


class Entry(models.Model):
    """A player in a tournament. ``withdrawn`` entries before the start are deleted; during
    the event they stay (with their results) and forfeit every match left."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="entries")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                             related_name="tournament_entries")
    created_at = models.DateTimeField(auto_now_add=True)
    seed = models.PositiveIntegerField(null=True, blank=True)  # 1 = top seed
    rating = models.PositiveIntegerField(null=True, blank=True)  # at the start
    provisional = models.BooleanField(default=False)  # the rating at the start was ("1500?")
    withdrawn = models.BooleanField(default=False)
    # why, once withdrawn during the event (blank for entries withdrawn before it was kept)
    out_reason = models.CharField(max_length=10, choices=OutReason.choices, default="",
                                  blank=True)
    # Standings, refreshed after every result.
    score = models.FloatField(default=0)
    tiebreak1 = models.FloatField(default=0)
    tiebreak2 = models.FloatField(default=0)
    place = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["tournament", "place", "seed", "id"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "user"], name="entry_once"),
        ]

    def __str__(self):
        return f"{self.tournament_id}: {self.user_id}"


class MatchStatus(models.TextChoices):
    # paired, its table not open yet: a player is in a game with people elsewhere (another
    # tournament's match); it opens once both are free
    WAITING = "waiting", "Waiting"
    PLAYING = "playing", "Playing"
    FINISHED = "finished", "Finished"
    BYE = "bye", "Bye"


# A match not decided yet: its table open, or waiting to open.
UNDECIDED = (MatchStatus.WAITING, MatchStatus.PLAYING)


class MatchEnding(models.TextChoices):
    PLAYED = "played", "Played"
    NO_SHOW = "no_show", "No-show"
    WITHDRAWAL = "withdrawal", "Withdrawal"
    BYE = "bye", "Bye"


class Match(models.Model):
    """One pairing: a game at ``table`` between ``player_a`` (the higher seed or placed) and
    ``player_b``; a bye has no ``player_b`` and no table, nor a waiting match yet (its
    ``created_at`` is reset when its table opens: the no-show clock starts then)."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="matches")
    key = models.CharField(max_length=24)  # bracket key ("W2-1"), "R3-4", "A17"
    round = models.PositiveSmallIntegerField(default=1)
    player_a = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL,
                                 related_name="+")
    player_b = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                 on_delete=models.SET_NULL, related_name="+")
    table = models.OneToOneField("games.Table", null=True, blank=True,
                                 on_delete=models.SET_NULL, related_name="tournament_match")
    status = models.CharField(max_length=10, choices=MatchStatus.choices,
                              default=MatchStatus.PLAYING, db_index=True)
    ending = models.CharField(max_length=12, choices=MatchEnding.choices, blank=True)
    winner = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                               on_delete=models.SET_NULL, related_name="+")
    score_a = models.IntegerField(null=True, blank=True)
    score_b = models.IntegerField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["tournament", "round", "id"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "key"], name="match_key_once"),
        ]

    def __str__(self):
        return f"{self.tournament_id} {self.key}"
