"""Stored games: a finished ``Game``, its ``GamePlayer`` per seat, the sweep's heartbeat."""
from __future__ import annotations

from django.conf import settings
from django.db import models
from django.urls import reverse

from .tables import Mode, Table


class Ending(models.TextChoices):
    NORMAL = "normal", "Played to the end"
    RESIGNATION = "resignation", "Resignation"
    TIMEOUT = "timeout", "Timeout"
    ABANDONMENT = "abandonment", "Abandonment"
    # A player the site seated (a tournament's match) who never came: neither opened the table
    # nor moved before its grace ran out. Nothing was played, so no statistics count it.
    NO_SHOW = "no_show", "No-show"


class Game(models.Model):
    """A finished game, kept for ever: the record behind /games/<id>/."""

    table = models.OneToOneField(
        Table, null=True, blank=True, on_delete=models.SET_NULL, related_name="game"
    )
    mode = models.CharField(max_length=16, choices=Mode.choices)
    settings = models.JSONField(default=dict)
    num_players = models.PositiveSmallIntegerField()
    target = models.PositiveIntegerField()
    rated = models.BooleanField(default=False)
    # Indexed: an offline upload is refused when its deal (seed and mode) is already stored
    # (games.services.offline), so that a game's record cannot be stored again as another one.
    seed = models.BigIntegerField(db_index=True)
    actions = models.JSONField(default=list)
    hands = models.JSONField(default=list)
    final = models.JSONField(default=dict)
    record = models.JSONField(default=dict)
    ending = models.CharField(max_length=12, choices=Ending.choices)
    # The seat that resigned, timed out, abandoned or never came (null for a normal ending).
    loser_seat = models.SmallIntegerField(null=True, blank=True)
    winner_seat = models.SmallIntegerField(null=True, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(db_index=True)
    # A game played offline against the computer and uploaded (docs/offline.md): the UUID the
    # browser gave it, unique so that uploading it twice stores it once. Null for games
    # played at the site's tables.
    offline_id = models.UUIDField(null=True, blank=True, unique=True, editable=False)

    class Meta:
        ordering = ["-finished_at"]
        constraints = [
            # two uploads of one deal at once: one is stored
            models.UniqueConstraint(
                fields=["seed", "mode"],
                condition=models.Q(offline_id__isnull=False),
                name="game_offline_deal_once",
            )
        ]

    def __str__(self):
        return f"Game {self.pk} ({self.get_mode_display()})"

    def get_absolute_url(self):
        return reverse("games:game", kwargs={"game_id": self.pk})

    @property
    def offline(self) -> bool:
        """Played offline against the computer (in the browser) and uploaded."""
        return self.offline_id is not None


class GamePlayer(models.Model):
    """One seat of a finished game: who sat there, their totals and their place."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="players")
    seat = models.PositiveSmallIntegerField()
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
        related_name="game_players",
    )
    bot_level = models.PositiveSmallIntegerField(null=True, blank=True)
    name = models.CharField(max_length=60)
    score = models.IntegerField(default=0)
    # 1 for the winner; ties share a place.
    place = models.PositiveSmallIntegerField(default=1)
    won = models.BooleanField(default=False)
    # How this player left the game before its end (an ``Ending``: resignation, timeout,
    # abandonment), blank for one who played it to the end. Set for every leaver of a game
    # of three or four that went on without them (a computer played their seat on) and for
    # the player whose forfeit ended the game (``Game.loser_seat``); games stored before
    # this field have it blank and only ``Game.loser_seat`` says who forfeited.
    left = models.CharField(max_length=12, choices=Ending.choices, blank=True, default="")
    # Copies of the game's facts that the archive filters on, so that a player's archive
    # reads their own rows only (a player may have tens of thousands of games).
    mode = models.CharField(max_length=16, choices=Mode.choices, blank=True)
    rated = models.BooleanField(default=False)
    private = models.BooleanField(default=False)  # played at a private table
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["game", "seat"]
        constraints = [
            models.UniqueConstraint(fields=["game", "seat"], name="gameplayer_unique_seat"),
        ]
        # a player's archive, newest first (game ids follow the finishing order: the Game
        # row is created by the finish path)
        indexes = [models.Index(fields=["user", "-game"], name="gameplayer_user_game")]

    @classmethod
    def of_game(cls, game: Game, *, private: bool = False, **fields) -> GamePlayer:
        """An unsaved seat of ``game`` with the game's copied facts filled in."""
        return cls(game=game, mode=game.mode, rated=game.rated, private=private,
                   finished_at=game.finished_at, **fields)

    def __str__(self):
        return f"{self.game_id}#{self.seat} {self.name}"


class Heartbeat(models.Model):
    """When a periodic job last completed. ``sweep``: the games sweep, run by a Celery worker
    every 2 s through beat (``/healthz`` reports a worker not heard from). ``clocks``: the
    last time any process watching clocks reached the database (each Daphne with seated
    sockets, every second, and the sweep); a gap in it is an outage, whose time the running
    turns get back before any deadline is applied (``services.clock.clocks_watched``)."""

    name = models.CharField(max_length=40, primary_key=True)
    at = models.DateTimeField()

    def __str__(self):
        return f"{self.name} at {self.at:%Y-%m-%d %H:%M:%S}"


class ClockOutage(models.Model):
    """A gap in the ``clocks`` heartbeat, and the time given back for it to the turns that
    were running (``services.clock.clocks_watched``). The give-back goes through the playing
    tables in batches of ids, each in its own short transaction (``next_table`` is the cursor:
    the tables below it are done), so no move waits behind one long UPDATE of every table;
    until ``done_at`` is set no deadline is applied anywhere (``clocks_fresh`` finishes the
    give-back first). Kept afterwards as the site's log of its outages."""

    since = models.DateTimeField()  # the last stamp before the gap
    detected_at = models.DateTimeField()  # the end of the gap: tables written since are skipped
    back = models.DurationField()
    resume_at = models.DateTimeField()  # every extended turn runs at least until then
    next_table = models.BigIntegerField(default=0)
    extended = models.IntegerField(default=0)
    pending = models.BooleanField(default=True)
    done_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            # One give-back at a time: two processes that find the same gap make one.
            models.UniqueConstraint(
                fields=["pending"], condition=models.Q(pending=True),
                name="clockoutage_one_pending",
            ),
        ]

    def __str__(self):
        return f"outage of {self.back} at {self.detected_at:%Y-%m-%d %H:%M:%S}"
