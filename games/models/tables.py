"""Live play: rooms, tables, their seats, moves and chat."""
from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.db import models
from django.urls import reverse
from django.utils import timezone

from games.bots.levels import computer_name, computer_short_name

from .. import conf


def grace_seconds() -> int:
    """Seconds a player may be away before the others may claim the game
    (``GAMES_DISCONNECT_GRACE``)."""
    return int(conf.get("DISCONNECT_GRACE"))


class Mode(models.TextChoices):
    CLASSIC = "classic", "Classic Gin"
    STRAIGHT = "straight", "Straight Gin"
    OKLAHOMA = "oklahoma", "Oklahoma Gin"
    HOLLYWOOD = "hollywood", "Hollywood Gin"
    RUMMY = "rummy", "Basic Rummy"


class Room(models.Model):
    """A game room: a place to find tables of one mode."""

    slug = models.SlugField(unique=True)
    name = models.CharField(max_length=60)
    mode = models.CharField(max_length=16, choices=Mode.choices)
    description = models.CharField(max_length=200, blank=True)
    min_seats = models.PositiveSmallIntegerField(default=2)
    max_seats = models.PositiveSmallIntegerField(default=2)
    allow_rated = models.BooleanField(default=True)
    order = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["order", "name"]

    def __str__(self):
        return self.name

    def get_absolute_url(self):
        return reverse("games:room", kwargs={"slug": self.slug})


class TableStatus(models.TextChoices):
    OPEN = "open", "Waiting for players"
    PLAYING = "playing", "Playing"
    FINISHED = "finished", "Finished"
    ABANDONED = "abandoned", "Abandoned"


class Table(models.Model):
    """One live game and its seats. ``version`` grows by one with every visible change."""

    room = models.ForeignKey(Room, on_delete=models.PROTECT, related_name="tables")
    mode = models.CharField(max_length=16, choices=Mode.choices)
    seat_count = models.PositiveSmallIntegerField(default=2)
    target = models.PositiveIntegerField()
    rated = models.BooleanField(default=False)
    # Rated tables only: who may sit is limited to players rated within this many points of
    # the creator (in the table's mode). Null: anyone. Checked by games.hooks' rated seat check.
    rating_range = models.PositiveSmallIntegerField(null=True, blank=True)
    # 0 means untimed (allowed only when every other seat is a bot).
    seconds_per_turn = models.PositiveSmallIntegerField(default=30)
    private = models.BooleanField(default=False)
    invite_token = models.CharField(max_length=32, blank=True)
    status = models.CharField(
        max_length=12, choices=TableStatus.choices, default=TableStatus.OPEN, db_index=True
    )
    version = models.PositiveIntegerField(default=0)
    state = models.JSONField(null=True, blank=True)
    seed = models.BigIntegerField()
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
        related_name="created_tables",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # The clock: who must act by when. Null when nobody is timed (untimed, or a bot to act).
    turn_deadline = models.DateTimeField(null=True, blank=True, db_index=True)
    deadline_seat = models.SmallIntegerField(null=True, blank=True)
    turn_started_at = models.DateTimeField(null=True, blank=True)
    # After an outage of the site, the moment its give-back set for the tables then playing
    # (the outage's ``resume_at``): a person's turn that starts before it, whatever move
    # starts it, runs at least until it (``services.clock.set_clock``).
    clock_floor = models.DateTimeField(null=True, blank=True)
    # Seats (indices) that offered a rematch after the game; the new table once made.
    rematch_offers = models.JSONField(default=list, blank=True)
    rematch_table = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # The stretches of a hand's public history the server played on a timeout, each
    # [hand number, first event, end]: a page opened mid-hand marks them in the log it
    # rebuilds from the view (``frames.snapshot_frame``'s ``timed_out``). Entries of earlier
    # hands are dropped when the next timeout is stored.
    hand_timeouts = models.JSONField(default=list, blank=True)
    # (not stored) the names of the people ``services.table_sit`` found gone from this
    # waiting table and took out of it, so that the seat taken did not start the game
    # against empty chairs: the page that sat says so
    vacated: tuple[str, ...] = ()

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["room", "status"])]
        # a private game is casual (docs/ratings.md, "Private games"): the database holds
        # the rule, so no path that makes a table (a rematch, a tournament) can miss it
        constraints = [
            models.CheckConstraint(condition=~(models.Q(private=True) & models.Q(rated=True)),
                                   name="table_private_is_casual"),
        ]

    def __str__(self):
        return f"Table {self.pk} ({self.get_mode_display()})"

    def get_absolute_url(self) -> str:
        return reverse("games:table", kwargs={"table_id": self.pk})

    @property
    def is_live(self) -> bool:
        return self.status in (TableStatus.OPEN, TableStatus.PLAYING)

    @property
    def shows_presence(self) -> bool:
        """Whether its players' comings and goings are sent to the table: while it is live,
        and after its game while a rematch may still be made there (a player who came back
        looked gone until someone offered one)."""
        return self.is_live or (self.status == TableStatus.FINISHED
                                and self.rematch_table_id is None)


class Seat(models.Model):
    """A seat at a table: empty, a user, or a bot of some level."""

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="seats")
    index = models.PositiveSmallIntegerField()
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
        related_name="seats",
    )
    bot_level = models.PositiveSmallIntegerField(null=True, blank=True)
    connected = models.BooleanField(default=False)
    last_seen = models.DateTimeField(null=True, blank=True)
    # Consecutive turns the server played for this seat because its clock ran out.
    timeouts = models.PositiveSmallIntegerField(default=0)
    # A person who left a game of three or four that went on without them (resigned, timed
    # out or claimed as gone while another person still played): the seat is a computer's
    # now (``bot_level``, no ``user``) and these say whose it was (``services.departures``).
    # ``left``: {"name", "username", "reason" (an ``Ending``), "at" (ISO), "place" (fixed when
    # they left: the last one still free), "after_hands"}.
    left_user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
        related_name="left_seats",
    )
    left = models.JSONField(null=True, blank=True)

    class Meta:
        ordering = ["table", "index"]
        constraints = [
            models.UniqueConstraint(fields=["table", "index"], name="seat_unique_index"),
        ]

    def __str__(self):
        return f"{self.table_id}#{self.index}"

    @property
    def is_bot(self) -> bool:
        return self.bot_level is not None

    @property
    def stands_in(self) -> bool:
        """A computer playing on for a person who left the game (``left``)."""
        return self.left is not None

    @property
    def is_empty(self) -> bool:
        return self.user_id is None and self.bot_level is None

    def is_gone(self, now: datetime | None = None) -> bool:
        """A human seat whose player has been away longer than the grace period.

        Works without ``disconnect()`` having run: a connected socket pings every 10 s (the
        server writes ``last_seen`` at most every 5 s), so a ``last_seen`` older than the grace
        means the socket is dead too: a player is gone 60 s after their last sign of life, a
        disconnection or a ping.
        """
        if self.user_id is None or self.last_seen is None:
            return False
        now = now or timezone.now()
        return self.last_seen < now - timedelta(seconds=grace_seconds())

    @staticmethod
    def bot_names(seats) -> dict[int, str]:
        """Seat index → name of every computer seat among one table's ``seats``, unique at the
        table: computers of the same level are numbered in seat order ("Computer (Medium)",
        "Computer 2 (Medium)", ...); a computer that plays on for a person who left is named
        after them ("Computer (for Alice)") and numbers no other."""
        names = {i: computer_name(level, n) for i, (level, n) in Seat._bot_numbers(seats).items()}
        names.update({s.index: stand_in_name(s.left) for s in seats if s.left is not None})
        return names

    @staticmethod
    def bot_short_names(seats) -> dict[int, str]:
        """Seat index → short label of every computer seat ("Medium", "Medium 2"), numbered
        as ``bot_names``: what a narrow seat box shows."""
        shorts = {i: computer_short_name(level, n)
                  for i, (level, n) in Seat._bot_numbers(seats).items()}
        shorts.update({s.index: stand_in_short_name(s.left) for s in seats
                       if s.left is not None})
        return shorts

    @staticmethod
    def _bot_numbers(seats) -> dict[int, tuple[int, int]]:
        """Seat index → (level, number among the table's computers of that level)."""
        numbers: dict[int, tuple[int, int]] = {}
        count: dict[int, int] = {}
        for seat in sorted(seats, key=lambda s: s.index):
            if seat.user_id is None and seat.bot_level is not None and seat.left is None:
                count[seat.bot_level] = count.get(seat.bot_level, 0) + 1
                numbers[seat.index] = (seat.bot_level, count[seat.bot_level])
        return numbers


def stand_in_name(left: dict) -> str:
    """The name of a computer that plays on for a person who left: "Computer (for Alice)"."""
    return f"Computer (for {left.get('name') or left.get('username') or 'a player'})"


def stand_in_short_name(left: dict) -> str:
    """Its label in a narrow seat box: "for Alice"."""
    return f"for {left.get('name') or left.get('username') or 'a player'}"


class ActionSource(models.TextChoices):
    PLAYER = "player", "Player"
    BOT = "bot", "Computer"
    TIMEOUT = "timeout", "Played on timeout"


class TableAction(models.Model):
    """One engine action, in order. ``version`` is the table version it produced."""

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="actions")
    version = models.PositiveIntegerField()
    seat = models.PositiveSmallIntegerField()
    action = models.CharField(max_length=80)
    source = models.CharField(
        max_length=10, choices=ActionSource.choices, default=ActionSource.PLAYER
    )
    # The client's id of the message (retries reuse it): a second copy is refused.
    client_id = models.CharField(max_length=40, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["table", "version"]
        constraints = [
            models.UniqueConstraint(fields=["table", "version"], name="action_unique_version"),
            # A move id is played once per seat (retries reuse it): the insert itself refuses
            # a second copy (``services.locking.insert_action``), no look-up before it.
            models.UniqueConstraint(fields=["table", "seat", "client_id"],
                                    condition=~models.Q(client_id=""),
                                    name="action_unique_client_id"),
        ]

    def __str__(self):
        return f"{self.table_id}@{self.version} seat {self.seat}: {self.action}"


class ChatMessage(models.Model):
    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="chat")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    text = models.CharField(max_length=300)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["table", "id"]

    def __str__(self):
        return f"{self.user_id}: {self.text[:30]}"
