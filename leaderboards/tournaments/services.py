"""Writes of tournaments: create, enter, withdraw, cancel, start, record results, advance.

Every function is keyword-only and runs in one transaction with the tournament row locked
(``select_for_update``), so two workers (or a worker and a request) never pair or advance one
tournament at the same time; table rows are locked after it, by ``games.services``, never
before. Tables are opened through ``games.services.table_create_for_players``; results come
back through ``games.signals.game_finished`` (``receivers``) as a Celery task. Notifications
(``social.notify``) and tasks go out after commit.

What comes next is always recomputed from the stored results by the pure ``pairing`` module,
so every step is safe to run twice: a match already recorded is not recorded again, and a
pairing that exists (unique ``(tournament, key)``) is not made again.
"""
from __future__ import annotations

import logging
import math
import secrets
from datetime import datetime, timedelta

from celery import current_app
from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone

from games import engine as E
from games import services as games_services
from games.exceptions import GameServiceError
from games.models import Ending, Game, GamePlayer, Mode, Room, Seat, TableAction

from . import pairing as P
from . import ratings
from .models import (
    Entry,
    Format,
    Match,
    MatchEnding,
    MatchStatus,
    Status,
    Tournament,
    TournamentSchedule,
)

log = logging.getLogger(__name__)

CAPACITY = {
    Format.SINGLE: (2, 128), Format.DOUBLE: (2, 64), Format.SWISS: (2, 1000),
    Format.ROBIN: (2, 16), Format.ARENA: (2, 1000),
}
SWISS_ROUNDS = (1, 15)
ARENA_MINUTES = (10, 240)
TURN_SECONDS = (15, 30, 60)
NAME_MAX = 80


class TournamentError(Exception):
    code = "invalid"

    def __init__(self, message: str, code: str | None = None):
        super().__init__(message)
        self.message = message
        if code:
            self.code = code


class NotFound(TournamentError):
    code = "not_found"


class NotAllowed(TournamentError):
    code = "not_allowed"


def _setting(name: str, default):
    return getattr(settings, name, default)


def min_rated_games() -> int:
    return _setting("TOURNAMENTS_MIN_RATED_GAMES", 3)


def no_show_seconds() -> int:
    return _setting("TOURNAMENTS_NO_SHOW_SECONDS", 120)


def rated_games(user) -> int:
    """The user's rated games towards ``min_rated_games`` (counted up to it): those the
    ratings rule rates, so a game that ended before both players moved does not count."""
    if user is None or not user.is_authenticated:
        return 0
    return ratings.rated_games(user, up_to=min_rated_games())


def can_create(user) -> bool:
    if user is None or not user.is_authenticated:
        return False
    return user.is_staff or rated_games(user) >= min_rated_games()


def room_for(mode: str) -> Room:
    room = (Room.objects.filter(slug=mode, min_seats__lte=2, max_seats__gte=2).first()
            or Room.objects.filter(mode=mode, min_seats__lte=2, max_seats__gte=2)
            .order_by("-allow_rated", "order").first())
    if room is None:
        raise TournamentError("There is no room for this game.")
    return room


def _lock(tournament_id) -> Tournament:
    try:
        pk = int(tournament_id)
    except (TypeError, ValueError):
        raise NotFound("There is no such tournament.") from None
    t = Tournament.objects.select_for_update().filter(pk=pk).first()
    if t is None:
        raise NotFound("There is no such tournament.")
    return t


def _bump(t: Tournament) -> None:
    t.version += 1
    t.save()


# ------------------------------------------------------------------------- notifications


def _ref(t: Tournament) -> dict:
    return {"id": t.pk, "name": t.name, "url": t.get_absolute_url()}


def _notify(user_ids, frame: dict) -> None:
    ids = [u for u in user_ids if u is not None]
    if not ids:
        return

    def send():
        from social.notify import notify_users

        try:
            notify_users(ids, frame)
        except Exception:  # notices are best effort; the page shows the truth
            log.exception("tournament notice failed")

    transaction.on_commit(send)


# ------------------------------------------------------------------------- create


def _validate(*, name, mode, format, target, capacity, rounds, duration_minutes,
              seconds_per_turn, starts_at: datetime, entry_opens_at: datetime | None,
              rating_min, rating_max, now: datetime) -> dict:
    name = " ".join(str(name or "").split())
    if not 3 <= len(name) <= NAME_MAX:
        raise TournamentError(f"The name must have 3 to {NAME_MAX} characters.")
    if mode not in Mode.values:
        raise TournamentError("Choose a game.")
    if format not in Format.values:
        raise TournamentError("Choose a format.")
    if target is not None and not 50 <= target <= 500:
        raise TournamentError("The target score must be between 50 and 500.")
    low, high = CAPACITY[format]
    if capacity is None or not low <= capacity <= high:
        raise TournamentError(f"A {Format(format).label.lower()} takes {low} to {high} players.")
    if format == Format.SWISS:
        rounds = rounds or min(SWISS_ROUNDS[1], max(3, math.ceil(math.log2(capacity)) + 1))
        if not SWISS_ROUNDS[0] <= rounds <= SWISS_ROUNDS[1]:
            raise TournamentError(f"A Swiss has {SWISS_ROUNDS[0]} to {SWISS_ROUNDS[1]} rounds.")
    else:
        rounds = None
    if format == Format.ARENA:
        duration_minutes = duration_minutes or 60
        if not ARENA_MINUTES[0] <= duration_minutes <= ARENA_MINUTES[1]:
            raise TournamentError(
                f"An arena lasts {ARENA_MINUTES[0]} to {ARENA_MINUTES[1]} minutes.")
    else:
        duration_minutes = None
    if seconds_per_turn not in TURN_SECONDS:
        raise TournamentError("Choose 15, 30 or 60 seconds per turn.")
    if starts_at is None or starts_at < now + timedelta(minutes=1):
        raise TournamentError("The start must be at least a minute from now.")
    if starts_at > now + timedelta(days=60):
        raise TournamentError("The start must be within 60 days.")
    entry_opens_at = entry_opens_at or now
    if entry_opens_at >= starts_at:
        raise TournamentError("Entries must open before the start.")
    for value in (rating_min, rating_max):
        if value is not None and not 0 <= value <= 4000:
            raise TournamentError("Rating limits are between 0 and 4000.")
    if rating_min is not None and rating_max is not None and rating_min >= rating_max:
        raise TournamentError("The rating floor must be below the ceiling.")
    return {
        "name": name, "mode": mode, "format": format,
        "target": target or _default_target(mode), "capacity": capacity, "rounds": rounds,
        "duration_minutes": duration_minutes, "seconds_per_turn": seconds_per_turn,
        "starts_at": starts_at, "entry_opens_at": entry_opens_at,
        "rating_min": rating_min, "rating_max": rating_max,
    }


def _default_target(mode: str) -> int:
    return E.get_mode(mode).target_for(2)


def tournament_create(
    *, user, name: str, mode: str = Mode.CLASSIC, format: str = Format.SINGLE,
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
            raise NotAllowed(
                f"Play {min_rated_games()} rated games before creating a tournament (you have "
                f"{rated_games(user)} of {min_rated_games()} rated games).")
    data = _validate(
        name=name, mode=mode, format=format, target=target, capacity=capacity, rounds=rounds,
        duration_minutes=duration_minutes, seconds_per_turn=seconds_per_turn,
        starts_at=starts_at, entry_opens_at=entry_opens_at, rating_min=rating_min,
        rating_max=rating_max, now=timezone.now(),
    )
    room = room_for(mode)
    with transaction.atomic():
        t = Tournament.objects.create(
            **data, rated=room.allow_rated, private=bool(private),
            invite_token=secrets.token_urlsafe(16) if private else "",
            created_by=user if user is not None and user.is_authenticated else None,
            schedule=schedule,
        )
        _queue_start(t)
    return t


def _queue_start(t: Tournament) -> None:
    # by name: the tasks call these services, and the services never import the tasks
    start = current_app.signature("tournaments.start", args=(t.pk,))
    eta = t.starts_at
    transaction.on_commit(lambda: start.apply_async(eta=eta))


# ------------------------------------------------------------------------- enter, withdraw


def entry_refusal(t: Tournament, user, invite: str = "") -> str | None:
    """Why ``user`` may not enter now (None: they may)."""
    now = timezone.now()
    if user is None or not user.is_authenticated:
        return "Log in to enter."
    if t.status != Status.SCHEDULED or now >= t.starts_at:
        return "Entries are closed: the tournament has started."
    if now < t.entry_opens_at:
        return f"Entries open at {timezone.localtime(t.entry_opens_at):%H:%M, %d %b}."
    if t.private and user.pk != t.created_by_id and not (
        invite and secrets.compare_digest(str(invite), t.invite_token)
    ):
        return "This tournament is private: you need its invite link."
    ban = ratings.playban_until(user)
    if ban is not None and ban > now:
        return f"You may not play rated games until {timezone.localtime(ban):%H:%M, %d %b}."
    if t.rating_min is not None or t.rating_max is not None:
        rating = ratings.ratings_for([user.pk], t.mode).get(user.pk)
        if rating is not None and t.rating_min is not None and rating < t.rating_min:
            return f"Your rating ({rating}) is below this tournament's floor ({t.rating_min})."
        if rating is not None and t.rating_max is not None and rating > t.rating_max:
            return f"Your rating ({rating}) is above this tournament's ceiling ({t.rating_max})."
    return None


def tournament_enter(*, tournament_id, user, invite: str = "") -> Entry:
    with transaction.atomic():
        t = _lock(tournament_id)
        reason = entry_refusal(t, user, invite)
        if reason:
            raise NotAllowed(reason)
        if Entry.objects.filter(tournament=t, user=user).exists():
            raise TournamentError("You have already entered.", "already")
        if Entry.objects.filter(tournament=t).count() >= t.capacity:
            raise TournamentError("The tournament is full.", "full")
        entry = Entry.objects.create(tournament=t, user=user)
        _bump(t)
    return entry


def tournament_withdraw(*, tournament_id, user) -> None:
    """Before the start the entry goes; during the event the player forfeits their match in
    play and every match after it."""
    if user is None or not user.is_authenticated:
        raise NotAllowed("Log in first.")
    with transaction.atomic():
        t = _lock(tournament_id)
        entry = Entry.objects.filter(tournament=t, user=user).first()
        if entry is None or entry.withdrawn:
            raise TournamentError("You are not in this tournament.", "not_entered")
        if t.status == Status.SCHEDULED:
            entry.delete()
            _bump(t)
            return
        if t.status != Status.RUNNING:
            raise TournamentError("The tournament is over.", "over")
        entry.withdrawn = True
        entry.save(update_fields=["withdrawn"])
        for match in Match.objects.filter(tournament=t, status=MatchStatus.PLAYING).filter(
            Q(player_a=user) | Q(player_b=user)
        ):
            _forfeit(t, match, loser_id=user.pk, ending=MatchEnding.WITHDRAWAL)
        _advance(t)
        _bump(t)


def tournament_cancel(*, tournament_id, user, reason: str = "") -> Tournament:
    """The creator (before the start) or staff (any time before the end) cancels, saying
    why. Matches in play are left to finish as ordinary games."""
    reason = " ".join(str(reason or "").split())[:200]
    with transaction.atomic():
        t = _lock(tournament_id)
        staff = user is not None and user.is_authenticated and user.is_staff
        creator = user is not None and user.is_authenticated and user.pk == t.created_by_id
        if not (staff or (creator and t.status == Status.SCHEDULED)):
            raise NotAllowed("Only its creator, before the start, or staff may cancel it.")
        if t.status not in (Status.SCHEDULED, Status.RUNNING):
            raise TournamentError("The tournament is over.", "over")
        _cancel(t, reason or "Cancelled by the organiser.")
    return t


def _cancel(t: Tournament, reason: str) -> None:
    t.status = Status.CANCELLED
    t.cancel_reason = reason
    t.finished_at = timezone.now()
    _bump(t)
    _notify(Entry.objects.filter(tournament=t).values_list("user_id", flat=True),
            {"type": "tournament", "event": "cancelled", "tournament": _ref(t),
             "reason": reason})


# ------------------------------------------------------------------------- start


def tournament_start(*, tournament_id) -> bool:
    """At the start: seed the entrants by rating, build the bracket or first round, open a
    table per match and tell the players. Does nothing before ``starts_at`` or once started
    (safe to run twice, from several workers)."""
    with transaction.atomic():
        t = _lock(tournament_id)
        now = timezone.now()
        if t.status != Status.SCHEDULED or t.starts_at > now + timedelta(seconds=1):
            return False
        entries = list(Entry.objects.filter(tournament=t, withdrawn=False).select_related("user"))
        if len(entries) < 2:
            _cancel(t, f"Not enough players: {len(entries)} entered, 2 are needed.")
            return True
        rating = ratings.ratings_for([e.user_id for e in entries], t.mode)
        order = P.seed_order({e.user_id: rating.get(e.user_id, 0) for e in entries})
        by_user = {e.user_id: e for e in entries}
        for i, uid in enumerate(order):
            e = by_user[uid]
            e.seed, e.rating = i + 1, rating.get(uid)
            e.save(update_fields=["seed", "rating"])
        t.status = Status.RUNNING
        t.started_at = now
        t.round = 1 if t.format != Format.ARENA else 0
        if t.format == Format.ARENA:
            t.ends_at = now + timedelta(minutes=t.duration_minutes or 60)
        t.save()
        _notify(order, {"type": "tournament", "event": "started", "tournament": _ref(t)})
        if t.format in (Format.SWISS, Format.ROBIN):
            _pair_round(t)
        _advance(t)
        _bump(t)
    return True


# ------------------------------------------------------------------------- matches


def _open_match(t: Tournament, *, key: str, round: int, a: int, b: int) -> bool:
    """A table for players ``a`` and ``b`` (user ids), and the notice to both. A player
    playbanned since entering is withdrawn instead (their match, except in an arena, is a
    forfeit); returns False then."""
    from django.contrib.auth import get_user_model

    users = get_user_model().objects.in_bulk([a, b])
    now = timezone.now()
    banned = [u for u in (a, b) if (ratings.playban_until(users[u]) or now) > now]
    if banned:
        Entry.objects.filter(tournament=t, user_id__in=banned).update(withdrawn=True)
        if t.format != Format.ARENA:
            match = Match.objects.create(tournament=t, key=key, round=round, player_a_id=a,
                                         player_b_id=b)
            winner = a if a not in banned else b if b not in banned else (
                a if t.is_elimination else None)
            _record(t, match, winner_id=winner, ending=MatchEnding.WITHDRAWAL)
        return False
    table = games_services.table_create_for_players(
        room=room_for(t.mode), players=[users[a], users[b]], target=t.target, rated=t.rated,
        seconds_per_turn=t.seconds_per_turn, created_by=None,
    )
    Match.objects.create(tournament=t, key=key, round=round, player_a_id=a, player_b_id=b,
                         table=table)
    from social.notify import user_ref

    for me, them in ((a, b), (b, a)):
        _notify([me], {
            "type": "tournament", "event": "match", "tournament": _ref(t),
            "table": {"id": table.pk, "url": table.get_absolute_url()},
            "opponent": user_ref(users[them]), "round": round,
        })
    return True


def _record(t: Tournament, match: Match, *, winner_id: int | None, ending: str,
            scores: tuple[int | None, int | None] = (None, None)) -> None:
    match.status = MatchStatus.FINISHED
    match.winner_id = winner_id
    match.ending = ending
    match.score_a, match.score_b = scores
    match.finished_at = timezone.now()
    match.save()


def _forfeit(t: Tournament, match: Match, *, loser_id: int, ending: str) -> None:
    """``loser_id`` loses ``match`` without playing on; its game ends now as abandoned."""
    winner_id = match.player_b_id if match.player_a_id == loser_id else match.player_a_id
    if match.table_id is not None:
        seat = Seat.objects.filter(table_id=match.table_id, user_id=loser_id).first()
        try:
            games_services.game_finish(table_id=match.table_id, ending=Ending.ABANDONMENT,
                                       loser_seat=seat.index if seat else None)
        except GameServiceError:
            pass  # the game had just ended: this result stands instead
    _record(t, match, winner_id=winner_id, ending=ending)


def match_result(*, table_id: int) -> bool:
    """A game at a tournament table ended: record the match and build what comes next.
    Does nothing for other tables or a match already recorded."""
    match_id = Match.objects.filter(table_id=table_id).values_list("pk", flat=True).first()
    if match_id is None:
        return False
    with transaction.atomic():
        tid = Match.objects.filter(pk=match_id).values_list("tournament_id", flat=True).first()
        t = _lock(tid)
        match = Match.objects.select_for_update().get(pk=match_id)
        if not _record_game(t, match):
            return False
        if t.status == Status.RUNNING:
            _advance(t)
        _bump(t)
    return True


def _record_game(t: Tournament, match: Match) -> bool:
    """Record ``match`` from its stored game (False if it is recorded or not over yet)."""
    if match.status != MatchStatus.PLAYING or match.table_id is None:
        return False
    game = Game.objects.filter(table_id=match.table_id).first()
    if game is None:
        return False
    by_seat = {gp.seat: gp for gp in GamePlayer.objects.filter(game=game)}
    score = {gp.user_id: gp.score for gp in by_seat.values()}
    winner = by_seat[game.winner_seat].user_id if game.winner_seat in by_seat else None
    if winner is None and t.is_elimination:
        # A tied game cannot stand in a bracket: the higher seed goes through.
        seeds = dict(Entry.objects.filter(tournament=t).values_list("user_id", "seed"))
        winner = min((match.player_a_id, match.player_b_id),
                     key=lambda u: seeds.get(u) or 10**6)
    _record(t, match, winner_id=winner, ending=MatchEnding.PLAYED,
            scores=(score.get(match.player_a_id), score.get(match.player_b_id)))
    return True


# ------------------------------------------------------------------------- advancing


def _seeds(t: Tournament) -> list[int]:
    return list(Entry.objects.filter(tournament=t, seed__isnull=False).order_by("seed")
                .values_list("user_id", flat=True))


def bracket(t: Tournament):
    """``(specs, resolved)`` of an elimination tournament from its stored results."""
    seeds = _seeds(t)
    specs = (P.single_elimination if t.format == Format.SINGLE else P.double_elimination)(
        len(seeds))
    results = dict(Match.objects.filter(tournament=t, status=MatchStatus.FINISHED)
                   .values_list("key", "winner_id"))
    return specs, P.resolve(specs, seeds, results)


def _advance(t: Tournament) -> None:
    """Open every match that can be played now; finish the tournament when it is decided."""
    if t.status != Status.RUNNING:
        return
    {Format.SINGLE: _advance_elimination, Format.DOUBLE: _advance_elimination,
     Format.SWISS: _advance_rounds, Format.ROBIN: _advance_rounds,
     Format.ARENA: _advance_arena}[t.format](t)
    _refresh_standings(t)


def _withdrawn(t: Tournament) -> set[int]:
    return set(Entry.objects.filter(tournament=t, withdrawn=True)
               .values_list("user_id", flat=True))


def _advance_elimination(t: Tournament) -> None:
    while True:
        gone = _withdrawn(t)
        specs, resolved = bracket(t)
        existing = set(Match.objects.filter(tournament=t).values_list("key", flat=True))
        changed = False
        for m in resolved.values():
            if m.state != "ready" or m.spec.key in existing:
                continue
            if m.a in gone or m.b in gone:
                winner = m.a if m.a not in gone else m.b
                match = Match.objects.create(tournament=t, key=m.spec.key, round=m.spec.round,
                                             player_a_id=m.a, player_b_id=m.b)
                _record(t, match, winner_id=winner, ending=MatchEnding.WITHDRAWAL)
                changed = True
            else:
                changed |= not _open_match(t, key=m.spec.key, round=m.spec.round, a=m.a,
                                           b=m.b)
        if not changed:
            break
    champion = P.champion(specs, resolved)
    if champion is not None:
        _finish(t)


def _round_done(t: Tournament) -> bool:
    return not Match.objects.filter(tournament=t, round=t.round,
                                    status=MatchStatus.PLAYING).exists()


def _total_rounds(t: Tournament) -> int:
    if t.format == Format.SWISS:
        return min(t.rounds or 1, max(1, len(_seeds(t)) - 1))
    n = len(_seeds(t))
    return n if n % 2 else n - 1


def _advance_rounds(t: Tournament) -> None:
    while _round_done(t):
        if t.round >= _total_rounds(t):
            _finish(t)
            return
        t.round += 1
        t.save(update_fields=["round"])
        _pair_round(t)


def _pair_round(t: Tournament) -> None:
    """Make round ``t.round`` of a Swiss or round robin (byes and forfeits recorded at once)."""
    gone = _withdrawn(t)
    r = t.round
    if t.format == Format.ROBIN:
        schedule = P.round_robin(_seeds(t))
        pairs = schedule[r - 1] if r <= len(schedule) else []
        byes = [a for a, b in pairs if b is None]
        pairs = [(a, b) for a, b in pairs if b is not None]
    else:
        players = _swiss_players(t, exclude=gone)
        pairs, bye = P.swiss_pairings(players)
        byes = [bye] if bye is not None else []
    for i, (a, b) in enumerate(pairs):
        key = f"R{r}-{i}"
        if a in gone or b in gone:
            match = Match.objects.create(tournament=t, key=key, round=r, player_a_id=a,
                                         player_b_id=b)
            winner = None if (a in gone and b in gone) else (a if b in gone else b)
            _record(t, match, winner_id=winner, ending=MatchEnding.WITHDRAWAL)
        else:
            _open_match(t, key=key, round=r, a=a, b=b)
    for a in byes:
        Match.objects.create(tournament=t, key=f"R{r}-bye", round=r, player_a_id=a,
                             status=MatchStatus.BYE, winner_id=a, ending=MatchEnding.BYE,
                             finished_at=timezone.now())


def _results(t: Tournament) -> list[P.Result]:
    out = []
    for a, b, w, status in Match.objects.filter(
        tournament=t, status__in=(MatchStatus.FINISHED, MatchStatus.BYE)
    ).values_list("player_a_id", "player_b_id", "winner_id", "status"):
        if a is None:
            continue
        if status == MatchStatus.BYE:
            out.append(P.Result(a, None, a))
        elif b is not None:
            out.append(P.Result(a, b, w))
    return out


def _swiss_players(t: Tournament, exclude=()) -> list[P.SwissPlayer]:
    entries = {e.user_id: e for e in Entry.objects.filter(tournament=t, seed__isnull=False)}
    score = dict.fromkeys(entries, 0.0)
    met: dict[int, set[int]] = {u: set() for u in entries}
    byes: set[int] = set()
    for r in _results(t):
        if r.b is None:
            score[r.a] = score.get(r.a, 0) + 1
            byes.add(r.a)
            continue
        for me, them in ((r.a, r.b), (r.b, r.a)):
            if me in score:
                score[me] += 1 if r.winner == me else 0.5 if r.winner is None else 0
                met[me].add(them)
    return [P.SwissPlayer(u, score[u], e.rating or 0, frozenset(met[u]), u in byes)
            for u, e in entries.items() if u not in exclude]


def _arena_games(t: Tournament) -> tuple[dict, dict]:
    """Each player's finished matches in order as (outcome, opponent rating), and their last
    opponent."""
    rating = dict(Entry.objects.filter(tournament=t).values_list("user_id", "rating"))
    games: dict[int, list] = {}
    last: dict[int, int] = {}
    for a, b, w in Match.objects.filter(tournament=t, status=MatchStatus.FINISHED).order_by(
        "finished_at", "id"
    ).values_list("player_a_id", "player_b_id", "winner_id"):
        for me, them in ((a, b), (b, a)):
            if me is None or them is None:
                continue
            outcome = "win" if w == me else "draw" if w is None else "loss"
            games.setdefault(me, []).append((outcome, rating.get(them) or 0))
            last[me] = them
    return games, last


def _advance_arena(t: Tournament) -> None:
    now = timezone.now()
    playing = Match.objects.filter(tournament=t, status=MatchStatus.PLAYING)
    if t.ends_at is not None and now >= t.ends_at:
        if not playing.exists():
            _finish(t)
        return
    busy = set()
    for a, b in playing.values_list("player_a_id", "player_b_id"):
        busy.update((a, b))
    games, last = _arena_games(t)
    free = [
        P.ArenaPlayer(e.user_id, P.arena_points(o for o, _ in games.get(e.user_id, ()))[0],
                      e.rating or 0, last.get(e.user_id))
        for e in Entry.objects.filter(tournament=t, withdrawn=False, seed__isnull=False)
        if e.user_id not in busy
    ]
    if len(free) < 2:
        return
    number = Match.objects.filter(tournament=t).count()
    for a, b in P.arena_pairings(free):
        number += 1
        _open_match(t, key=f"A{number}", round=0, a=a, b=b)


def _refresh_standings(t: Tournament) -> None:
    entries = {e.user_id: e for e in Entry.objects.filter(tournament=t, seed__isnull=False)}
    if not entries:
        return
    rows: dict[int, tuple[float, float, float, int | None]] = {}
    if t.is_elimination:
        specs, resolved = bracket(t)
        places = P.elimination_places(specs, resolved)
        wins: dict[int, int] = {}
        for m in resolved.values():
            if m.state == "done":
                wins[m.winner] = wins.get(m.winner, 0) + 1
        for u in entries:
            rows[u] = (wins.get(u, 0), 0, 0, places.get(u))
    elif t.format == Format.ARENA:
        games, _ = _arena_games(t)
        for s in P.arena_standings(entries, games):
            rows[s.player] = (s.score, s.tiebreak1, s.tiebreak2, s.place)
    else:
        for s in P.swiss_standings(entries, _results(t)):
            rows[s.player] = (s.score, s.tiebreak1, s.tiebreak2, s.place)
    for u, e in entries.items():
        score, tb1, tb2, place = rows[u]
        if (e.score, e.tiebreak1, e.tiebreak2, e.place) != (score, tb1, tb2, place):
            e.score, e.tiebreak1, e.tiebreak2, e.place = score, tb1, tb2, place
            e.save(update_fields=["score", "tiebreak1", "tiebreak2", "place"])


def _finish(t: Tournament) -> None:
    if t.status != Status.RUNNING:
        return
    t.status = Status.FINISHED
    t.finished_at = timezone.now()
    t.save()
    _refresh_standings(t)
    first = Entry.objects.filter(tournament=t, place=1).order_by("seed").first()
    t.winner_id = first.user_id if first else None
    t.save(update_fields=["winner"])
    _notify(Entry.objects.filter(tournament=t).values_list("user_id", flat=True),
            {"type": "tournament", "event": "finished", "tournament": _ref(t)})


# ------------------------------------------------------------------------- periodic


def tournament_tick(*, tournament_id) -> dict:
    """Record games whose result was missed, forfeit no-shows, pair an arena wave, close an
    arena at its end (safe to repeat)."""
    done = {"no_shows": 0, "recorded": 0}
    with transaction.atomic():
        t = _lock(tournament_id)
        if t.status != Status.RUNNING:
            return done
        before = (Match.objects.filter(tournament=t).count(), t.status)
        # Games that ended without their result task having run (a lost task): record now.
        for match in Match.objects.filter(tournament=t, status=MatchStatus.PLAYING,
                                          table__game__isnull=False):
            done["recorded"] += _record_game(t, match)
        cutoff = timezone.now() - timedelta(seconds=no_show_seconds())
        for match in Match.objects.filter(tournament=t, status=MatchStatus.PLAYING,
                                          created_at__lt=cutoff, table__isnull=False):
            absent = _absent(match)
            if not absent:
                continue
            loser = match.player_b_id if len(absent) == 2 else absent[0]
            _forfeit(t, match, loser_id=loser, ending=MatchEnding.NO_SHOW)
            done["no_shows"] += 1
            if t.format == Format.ARENA:
                # Nobody should wait for them again: an absent arena player stops being paired.
                Entry.objects.filter(tournament=t, user_id__in=absent).update(withdrawn=True)
        if done["no_shows"] or done["recorded"] or t.format == Format.ARENA:
            _advance(t)  # (brackets and rounds move on with each result, not by the clock)
        if done["no_shows"] or done["recorded"] or (
            Match.objects.filter(tournament=t).count(), t.status
        ) != before:
            _bump(t)
    return done


def _absent(match: Match) -> list[int]:
    """The match's players who neither opened their table nor moved."""
    moved = set(TableAction.objects.filter(table_id=match.table_id, source="player")
                .values_list("seat", flat=True))
    return [s.user_id for s in Seat.objects.filter(table_id=match.table_id, user__isnull=False)
            if s.last_seen is None and s.index not in moved]


def tournaments_sweep() -> dict:
    """Periodic: start the tournaments that are due (a missed or lost start task), tick the
    running ones, create the scheduled editions."""
    now = timezone.now()
    done = {"started": 0, "ticked": 0, "created": schedules_run()}
    for tid in Tournament.objects.filter(status=Status.SCHEDULED, starts_at__lte=now) \
            .values_list("pk", flat=True):
        try:
            done["started"] += tournament_start(tournament_id=tid)
        except Exception:
            log.exception("start of tournament %s failed", tid)
    for tid in Tournament.objects.filter(status=Status.RUNNING).values_list("pk", flat=True):
        try:
            tournament_tick(tournament_id=tid)
            done["ticked"] += 1
        except Exception:
            log.exception("tick of tournament %s failed", tid)
    return done


def schedules_run() -> int:
    """Create the next edition of every active schedule as soon as the previous one has
    started, so the lobby always lists one starting soon (entry opens ``entry_minutes``
    before the start). One per start: the unique ``(schedule, starts_at)`` makes a second
    run a no-op."""
    now = timezone.now()
    created = 0
    for sid in TournamentSchedule.objects.filter(active=True).values_list("pk", flat=True):
        with transaction.atomic():
            s = TournamentSchedule.objects.select_for_update().get(pk=sid)
            step = timedelta(hours=max(1, s.every_hours))
            while s.next_start < now + timedelta(minutes=1):
                s.next_start += step  # editions missed while nothing ran are skipped
            if s.next_start - step > now:
                s.save(update_fields=["next_start"])
                continue
            if not Tournament.objects.filter(schedule=s, starts_at=s.next_start).exists():
                tournament_create(
                    user=None, schedule=s, name=s.name, mode=s.mode, format=s.format,
                    target=s.target, capacity=s.capacity, rounds=s.rounds,
                    duration_minutes=s.duration_minutes, seconds_per_turn=s.seconds_per_turn,
                    starts_at=s.next_start,
                    entry_opens_at=s.next_start - timedelta(minutes=max(1, s.entry_minutes)),
                )
                created += 1
            s.next_start += step
            s.save(update_fields=["next_start"])
    return created


def invite_url(t: Tournament) -> str:
    return reverse("tournaments:detail", kwargs={"tournament_id": t.pk}) + (
        f"?invite={t.invite_token}" if t.private else "")

