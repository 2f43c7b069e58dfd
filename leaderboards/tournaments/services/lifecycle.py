"""A tournament's life: create, enter, withdraw, cancel, start."""
from __future__ import annotations

import secrets
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from celery import current_app
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from core.text import CONTROLS_MESSAGE, has_controls
from games.models import Mode

from .. import conf, frames, pairing, ratings
from ..exceptions import NotAllowed, TournamentError
from ..formats import format_for
from ..models import (
    CANCEL_REASON_MAX,
    UNDECIDED,
    Entry,
    Format,
    Match,
    MatchEnding,
    MatchStatus,
    OutReason,
    Status,
    Tournament,
    TournamentSchedule,
)
from .advancing import tournament_advance
from .locking import room_for, tournament_lock, version_bump
from .matches import DESK, match_forfeit
from .notices import notify_after_commit
from .policy import can_create, ended_refusal, entry_refusal, rated_games
from .validation import tournament_settings_check

if TYPE_CHECKING:
    from django.contrib.auth.models import AnonymousUser

    from accounts.models import User


def tournament_create(
    *, user: User | AnonymousUser | None, name: str, mode: str = Mode.CLASSIC,
    format: str = Format.SINGLE,
    target: int | None = None, capacity: int = 8, rounds: int | None = None,
    duration_minutes: int | None = None, seconds_per_turn: int = 30, starts_at: datetime,
    entry_opens_at: datetime | None = None, rating_min: int | None = None,
    rating_max: int | None = None, private: bool = False,
    schedule: TournamentSchedule | None = None,
) -> Tournament:
    """Create a tournament. Players need ``TOURNAMENTS_MIN_RATED_GAMES`` rated games; staff
    and schedules (``user`` None) need none."""
    if schedule is None:
        if user is None or not user.is_authenticated:
            raise NotAllowed("Log in to create a tournament.")
        if not can_create(user):
            need = conf.min_rated_games()
            raise NotAllowed(
                f"Play {need} rated games before creating a tournament (you have "
                f"{rated_games(user)} of {need} rated games).")
        most = conf.max_upcoming()
        if not user.is_staff and Tournament.objects.filter(
                created_by=user, status=Status.SCHEDULED).count() >= most:
            raise TournamentError(
                f"You already have {most} tournaments waiting to start: let one start, or "
                "cancel one, before creating another.", "too_many")
    data = tournament_settings_check(
        name=name, mode=mode, format=format, target=target, capacity=capacity, rounds=rounds,
        duration_minutes=duration_minutes, seconds_per_turn=seconds_per_turn,
        starts_at=starts_at, entry_opens_at=entry_opens_at, rating_min=rating_min,
        rating_max=rating_max, now=timezone.now(),
    )
    room = room_for(mode)
    with transaction.atomic():
        t = Tournament.objects.create(
            # a private tournament's games are casual, as every private game (docs/ratings.md)
            **data, rated=room.allow_rated and not private, private=bool(private),
            invite_token=secrets.token_urlsafe(16) if private else "",
            created_by=user if user is not None and user.is_authenticated else None,
            schedule=schedule,
        )
        start_queue(t)
    return t


def start_queue(t: Tournament) -> None:
    """Queue ``tournaments.start`` for ``starts_at``, after the commit."""
    # by name: the tasks call these services, and the services never import the tasks
    start = current_app.signature("tournaments.start", args=(t.pk,))
    eta = t.starts_at
    transaction.on_commit(lambda: start.apply_async(eta=eta))


def tournament_enter(*, tournament_id: int, user: User, invite: str = "") -> Entry:
    with transaction.atomic():
        t = tournament_lock(tournament_id)
        reason = entry_refusal(t, user, invite)
        if reason:
            raise NotAllowed(reason)
        if Entry.objects.filter(tournament=t, user=user).exists():
            raise TournamentError("You have already entered.", "already")
        if Entry.objects.filter(tournament=t).count() >= t.capacity:
            raise TournamentError("The tournament is full.", "full")
        entry = Entry.objects.create(tournament=t, user=user)
        version_bump(t)
    return entry


def tournament_withdraw(*, tournament_id: int, user: User | AnonymousUser | None) -> None:
    """Before the start the entry goes; during the event the player forfeits their match in
    play and every match after it."""
    if user is None or not user.is_authenticated:
        raise NotAllowed("Log in first.")
    with transaction.atomic():
        t = tournament_lock(tournament_id)
        ended = ended_refusal(t)  # the real reason first, whoever asks (as cancel and enter)
        if ended:
            raise TournamentError(ended, "over")
        entry = Entry.objects.filter(tournament=t, user=user).first()
        if entry is None:
            raise TournamentError("You are not in this tournament.", "not_entered")
        if entry.withdrawn:
            raise TournamentError("You have already withdrawn from this tournament.",
                                  "withdrawn")
        if t.status == Status.SCHEDULED:
            entry.delete()
            version_bump(t)
            return
        entry.withdrawn = True
        entry.out_reason = OutReason.WITHDREW
        entry.save(update_fields=["withdrawn", "out_reason"])
        for match in Match.objects.filter(tournament=t, status__in=UNDECIDED).filter(
            Q(player_a=user) | Q(player_b=user)
        ):
            match_forfeit(t, match, loser_id=user.pk, ending=MatchEnding.WITHDRAWAL)
        tournament_advance(t)
        version_bump(t)


def tournaments_leave(user: User) -> None:
    """A closing account (``accounts.closing``) withdraws from every tournament it is in:
    an upcoming one's entry goes; in a running one it forfeits what is left to play. Its
    tournaments are locked first, all of them, in id order, inside the closing's transaction:
    withdrawn one by one, the first withdrawal's pairing took the pairing lock and the next
    waited for a tournament whose sweep waited for that lock (a lock cycle)."""
    with transaction.atomic():
        ids = list(Entry.objects.filter(
            user=user, withdrawn=False,
            tournament__status__in=(Status.SCHEDULED, Status.RUNNING),
        ).order_by("tournament_id").values_list("tournament_id", flat=True))
        list(Tournament.objects.select_for_update().filter(pk__in=ids).order_by("pk")
             .values_list("pk", flat=True))
        for tournament_id in ids:
            tournament_withdraw(tournament_id=tournament_id, user=user)


def tournament_cancel(
    *, tournament_id: int, user: User | AnonymousUser | None, reason: str = ""
) -> Tournament:
    """The creator (before the start) or staff (any time before the end) cancels, saying
    why. Matches in play are left to finish as ordinary games."""
    reason = " ".join(str(reason or "").split())
    if len(reason) > CANCEL_REASON_MAX:  # refused, not cut off mid-word
        raise TournamentError(f"The reason may have at most {CANCEL_REASON_MAX} characters; "
                              f"it has {len(reason)}.", "too_long")
    if has_controls(reason):  # (it is shown on the tournament's page, as its name is)
        raise TournamentError(CONTROLS_MESSAGE, "control_characters")
    with transaction.atomic():
        t = tournament_lock(tournament_id)
        staff = user is not None and user.is_authenticated and user.is_staff
        creator = user is not None and user.is_authenticated and user.pk == t.created_by_id
        ended = ended_refusal(t)  # the real reason first, whoever asks
        if ended:
            raise TournamentError(ended, "over")
        if not (staff or (creator and t.status == Status.SCHEDULED)):
            raise NotAllowed("Only its creator, before the start, or staff may cancel it.")
        cancel(t, reason or "Cancelled by the organiser.")
    return t


def cancel(t: Tournament, reason: str) -> None:
    """Cancel the locked ``t`` and tell its entrants why."""
    t.status = Status.CANCELLED
    # a match waiting for a player's other game never opens (one in play finishes as a game)
    Match.objects.filter(tournament=t, status=MatchStatus.WAITING).delete()
    t.cancel_reason = reason
    t.finished_at = timezone.now()
    version_bump(t)
    notify_after_commit(Entry.objects.filter(tournament=t).values_list("user_id", flat=True),
                        frames.notice("cancelled", t, reason=reason))


def tournament_start(*, tournament_id: int) -> bool:
    """At the start: seed the entrants by rating, build the bracket or first round, open a
    table per match and tell the players. Does nothing before ``starts_at`` or once started
    (safe to run twice, from several workers)."""
    with transaction.atomic():
        t = tournament_lock(tournament_id)
        now = timezone.now()
        if t.status != Status.SCHEDULED or t.starts_at > now + timedelta(seconds=1):
            return False
        entries = list(Entry.objects.filter(tournament=t, withdrawn=False).select_related("user"))
        if len(entries) < 2:
            cancel(t, f"Not enough players: {len(entries)} entered, 2 are needed.")
            return True
        seeds = ratings.seed_ratings([e.user_id for e in entries], t.mode)
        order = pairing.seed_order({e.user_id: seeds[e.user_id][0] for e in entries})
        by_user = {e.user_id: e for e in entries}
        for i, uid in enumerate(order):
            e = by_user[uid]
            e.seed = i + 1
            e.rating, e.provisional = seeds[uid]
            e.save(update_fields=["seed", "rating", "provisional"])
        fmt = format_for(t)
        t.status = Status.RUNNING
        t.started_at = now
        fmt.begin(t, now)
        t.save()
        notify_after_commit(order, frames.notice("started", t))
        fmt.start(t, DESK)
        tournament_advance(t)
        version_bump(t)
    return True
