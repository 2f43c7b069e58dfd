"""Reads of tournaments: the lists, one tournament's page data, a player's results."""
from __future__ import annotations

from datetime import timedelta

from django.contrib.auth import get_user_model
from django.db.models import Count, F, Q
from django.utils import timezone

from core.secrets_compare import same_secret
from games import selectors as games_selectors
from games.models import TableStatus

from . import pairing as P
from .formats import bracket, bracket_specs, format_for
from .models import Entry, Format, Match, MatchStatus, Status, Tournament
from .services.policy import entry_refusal

FINISHED_LISTED = 20


def _with_counts(qs):
    # every entry: a withdrawal before the start deletes it, so one withdrawn took part (a
    # tournament of four whose player withdrew in round 2 read "3/4 players")
    return qs.annotate(entrants=Count("entries"),
                       withdrawn=Count("entries", filter=Q(entries__withdrawn=True)),
                       firsts=Count("entries", filter=Q(entries__place=1)))


def tournament_lists(user=None) -> dict:
    """Upcoming, running and recently finished public tournaments (and the private ones the
    user made or entered)."""
    visible = Q(private=False)
    if user is not None and user.is_authenticated:
        visible |= Q(created_by=user) | Q(
            pk__in=Entry.objects.filter(user=user).values("tournament_id"))
    base = _with_counts(Tournament.objects.filter(visible))
    entered = set()
    if user is not None and user.is_authenticated:
        entered = set(Entry.objects.filter(user=user, withdrawn=False)
                      .values_list("tournament_id", flat=True))
    lists = {
        "upcoming": list(base.filter(status=Status.SCHEDULED).order_by("starts_at")[:50]),
        "running": list(base.filter(status=Status.RUNNING).order_by("started_at")[:50]),
        "finished": list(
            base.filter(status__in=(Status.FINISHED, Status.CANCELLED))
            .select_related("winner").order_by("-finished_at")[:FINISHED_LISTED]
        ),
    }
    for rows in lists.values():
        for t in rows:
            t.entered = t.pk in entered
    _refusals(lists["upcoming"], user)
    return lists


def _refusals(rows: list[Tournament], user) -> None:
    """``t.refusal`` on each row: why the signed-in ``user`` may not enter it now (the entry
    policy's own answer, ``services.policy.entry_refusal``), so a row offers Enter only where
    the entry would be taken; "" for a visitor or an entrant."""
    known: dict = {}  # the user's playban and ratings, read once for every row
    for t in rows:
        t.refusal = (entry_refusal(t, user, known=known) or "") if (
            user is not None and user.is_authenticated and not t.entered) else ""


def starting_soon(mode: str | None = None, user=None, limit: int = 5) -> list[Tournament]:
    """Public tournaments taking entries now (for the lobby and the rooms)."""
    now = timezone.now()
    qs = Tournament.objects.filter(status=Status.SCHEDULED, private=False,
                                   entry_opens_at__lte=now, starts_at__gt=now,
                                   starts_at__lte=now + timedelta(days=2))
    if mode:
        qs = qs.filter(mode=mode)
    rows = list(_with_counts(qs).order_by("starts_at")[:limit])
    entered = set()
    if user is not None and user.is_authenticated:
        entered = set(Entry.objects.filter(user=user, tournament__in=rows)
                      .values_list("tournament_id", flat=True))
    for t in rows:
        t.entered = t.pk in entered
    _refusals(rows, user)
    return rows


def may_view(t: Tournament, user, invite: str = "") -> bool:
    """Whether ``user`` may see ``t``: a public one, or a private one's creator and entrants,
    and whoever holds its link while it takes entries. Once it has started, its games and
    standings are its players' alone, as a private table's (the link had shown the bracket and
    the winner to anyone: an outside audit)."""
    if not t.private:
        return True
    if user is not None and user.is_authenticated and (
            user.pk == t.created_by_id
            or Entry.objects.filter(tournament=t, user=user).exists()):
        return True
    return not link_too_late(t, invite) and link_holds(t, invite)


def link_holds(t: Tournament, invite: str) -> bool:
    """Whether ``invite`` is ``t``'s link."""
    return bool(invite and t.invite_token) and same_secret(invite, t.invite_token)


def link_too_late(t: Tournament, invite: str) -> bool:
    """Whether ``invite``, ``t``'s link, no longer opens it: ``t`` has started or ended."""
    return t.status != Status.SCHEDULED and link_holds(t, invite)


def _names(ids) -> dict[int, object]:
    return get_user_model().objects.in_bulk([i for i in ids if i is not None])


def page_data(t: Tournament, user=None) -> dict:
    """Everything the tournament page shows: standings, the bracket or the rounds, the
    viewer's own entry and next match."""
    # (while a bracket runs only the players knocked out have a place: those still in come
    # first, by seed; the knocked out had stood at the top of the standings)
    place = (F("place").asc(nulls_first=True) if t.status == Status.RUNNING and t.is_elimination
             else F("place").asc(nulls_last=True))
    entries = list(Entry.objects.filter(tournament=t).select_related("user")
                   .order_by(place, "seed", "created_at"))
    matches = list(Match.objects.filter(tournament=t).select_related("player_a", "player_b",
                                                                    "winner", "table")
                   .order_by("round", "id"))
    # a match's table is linked only for who may open it (a private tournament's tables are
    # its two players' alone: anyone else had a link to a 404)
    tables = [m.table for m in matches if m.table is not None]
    open_ids = games_selectors.tables_open_to(user, tables)
    for m in matches:
        m.table_url = (m.table.get_absolute_url()
                       if m.table is not None and m.table.pk in open_ids else "")
    me = None
    my_match = my_waiting = None
    if user is not None and user.is_authenticated:
        me = next((e for e in entries if e.user_id == user.pk), None)
        my_match = next(
            (m for m in matches if m.status == MatchStatus.PLAYING
             and user.pk in (m.player_a_id, m.player_b_id)), None)
        my_waiting = next(
            (m for m in matches if m.status == MatchStatus.WAITING
             and user.pk in (m.player_a_id, m.player_b_id)), None)
    # a match whose table the viewer has not opened yet: the page takes them there (a player
    # back from the last game, on the page, missed the new table and lost it as absent)
    unopened = my_match is not None and my_match.table_id is not None and not (
        games_selectors.players_came(my_match.table_id).get(user.pk, True))
    data = {
        "t": t, "entries": entries, "me": me, "my_match": my_match, "my_waiting": my_waiting,
        "my_match_unopened": unopened,
        "entrants": len(entries),  # (a withdrawal before the start deletes the entry)
        "withdrawn": sum(1 for e in entries if e.withdrawn),
        "rounds": [], "bracket": None, "me_out": False,
        "tiebreaks": format_for(t).tiebreak_labels,
        # everyone in first place: more than one where the tie-breaks could not part them
        # entrants without standings: before the start, or cancelled before it (nobody
        # played: no places, no ratings of a start that never came)
        "listing": t.status == Status.SCHEDULED or (
            t.status == Status.CANCELLED and t.started_at is None),
        "firsts": [e for e in entries if e.place == 1],
        # the viewer's place is shared with someone level on every key (any place, not
        # only the first)
        "me_shared": me is not None and me.place is not None and sum(
            1 for e in entries if e.place == me.place) > 1,
    }
    if t.status != Status.SCHEDULED and t.is_elimination and any(e.seed for e in entries):
        specs, resolved = bracket(t)
        data["bracket"] = _bracket_columns(t, matches, specs, resolved)
        # knocked out: told so, not that a next match is coming
        data["me_out"] = me is not None and me.user_id in P.knocked_out(specs, resolved)
    else:
        by_round: dict[int, list[Match]] = {}
        for m in matches:
            by_round.setdefault(m.round, []).append(m)
        data["rounds"] = sorted(by_round.items(), reverse=True)
        if t.format == "arena":  # (its one round: every game of the event)
            data["rounds"], data["games_earlier"] = _arena_games(matches)
    return data


ARENA_GAMES_SHOWN = 40


def _arena_games(matches: list[Match]) -> tuple[list[tuple[int, list[Match]]], int]:
    """An arena's games as its page lists them: those in play or waiting, then the latest
    finished, newest first, ``ARENA_GAMES_SHOWN`` in all at most (a ten-minute arena of four
    listed its 298 games, a page 7,800 px high on a phone: an outside audit); and how many
    finished games that leaves out (the standings count them all)."""
    newest = sorted(matches, key=lambda m: m.pk, reverse=True)
    live = [m for m in newest if m.status in (MatchStatus.PLAYING, MatchStatus.WAITING)]
    done = [m for m in newest if m.status not in (MatchStatus.PLAYING, MatchStatus.WAITING)]
    room = max(0, ARENA_GAMES_SHOWN - len(live))
    shown = live + done[:room]
    return ([(0, shown)] if shown else []), len(done) - len(done[:room])


_STAGES = {"W": "Round", "L": "Losers' round"}


def _stage_title(t: Tournament, side: str, round_no: int, final_round: int) -> str:
    """A bracket's column, as the bracket and a match's table both call it: "Round 2",
    "Final" (single elimination's last round), "Losers' round 3", "Grand final"."""
    if side == "F":
        return "Grand final" if round_no == 1 else "Grand final, reset"
    if t.format == Format.SINGLE and round_no == final_round:
        return "Final"
    return f"{_STAGES[side]} {round_no}"


def match_title(match: Match) -> str:
    """What a match is on its table's page: its bracket column's title in an elimination
    ("Final", "Losers' round 2"), "Round 3" in a Swiss or round robin, "" in an arena."""
    t = match.tournament
    if t.format == Format.ARENA:
        return ""
    if not t.is_elimination:
        return f"Round {match.round}" if match.round else ""
    specs = bracket_specs(t)
    spec = next((s for s in specs if s.key == match.key), None)
    if spec is None:
        return f"Round {match.round}" if match.round else ""
    final_round = max(s.round for s in specs if s.bracket == "W")
    return _stage_title(t, spec.bracket, spec.round, final_round)


def _bracket_columns(t: Tournament, matches: list[Match], specs: list[P.MatchSpec],
                     resolved: dict[str, P.Resolved]) -> list[dict]:
    """Columns of the bracket drawing: one per (bracket, round), each a list of boxes."""
    stored = {m.key: m for m in matches}
    users = _names({p for m in resolved.values() for p in (m.a, m.b)})
    columns: dict[tuple[str, int], dict] = {}
    final_round = max(s.round for s in specs if s.bracket == "W")
    for spec in specs:
        m = resolved[spec.key]
        if m.state in ("empty", "skipped"):
            continue
        col = columns.setdefault((spec.bracket, spec.round), {
            "title": _stage_title(t, spec.bracket, spec.round, final_round),
            "bracket": spec.bracket, "boxes": [],
        })
        match = stored.get(spec.key)
        col["boxes"].append({
            "key": spec.key, "state": m.state, "match": match,
            "sides": [
                {"user": users.get(p), "won": m.decided and p is not None and m.winner == p,
                 "score": (match.score_a if i == 0 else match.score_b) if match else None}
                for i, p in enumerate((m.a, m.b))
            ],
        })
    order = {"W": 0, "L": 1, "F": 2}
    return [columns[k] for k in sorted(columns, key=lambda k: (order[k[0]], k[1]))]


def user_results(user, limit: int = 10) -> list[Entry]:
    """The user's finished public tournaments with their place (the profile section)."""
    return list(
        Entry.objects.filter(user=user, tournament__status=Status.FINISHED,
                             tournament__private=False)
        .select_related("tournament").order_by("-tournament__finished_at")[:limit]
    )


def match_is_last(match: Match) -> bool:
    """No match of the tournament can follow this one: the tournament has ended, or this is
    its final (single elimination's, or a double elimination's reset), its last round (Swiss,
    round robin) or an arena game after the arena's end. (A grand final that a reset may
    follow is not last.)"""
    t = match.tournament
    if t.status in (Status.FINISHED, Status.CANCELLED):
        return True
    if t.format == Format.ARENA:
        return t.ends_at is not None and timezone.now() >= t.ends_at
    if not t.is_elimination:
        fmt = format_for(t)
        total = getattr(fmt, "total_rounds", None)
        return total is not None and bool(match.round) and match.round >= total(t)
    specs = bracket_specs(t)
    spec = next((s for s in specs if s.key == match.key), None)
    return spec is not None and spec is specs[-1] and (
        t.format == Format.SINGLE or spec.reset)


def match_rematch_refusal(table) -> str | None:
    """``games.hooks`` rematch check: a tournament match has no rematch (its players' next
    game is the tournament's, and a rematch would keep them from it)."""
    match = Match.objects.filter(table_id=table.pk).select_related("tournament").first()
    if match is None:
        return None
    after = ("The results are on the tournament's page." if match_is_last(match)
             else "What comes next is on the tournament's page.")
    return f"This was a match of {match.tournament.name}: there is no rematch. {after}"


def match_in_play_refusal(user) -> str | None:
    """``games.hooks`` busy check: while ``user``'s tournament match is in play, or paired and
    waiting to open, they take no seat among people elsewhere (their clock runs at the match;
    the other table would wait for them, or the match would)."""
    # (one query: it runs for every seat taken among people)
    matches = list(
        Match.objects.filter(Q(player_a=user) | Q(player_b=user))
        .filter(Q(status=MatchStatus.PLAYING, table__status=TableStatus.PLAYING)
                # paired, opening once both players are free: a new game would hold it
                | Q(status=MatchStatus.WAITING, tournament__status=Status.RUNNING))
        .select_related("tournament").order_by("pk"))
    match = next((m for m in matches if m.status == MatchStatus.PLAYING), None)
    if match is not None:
        return (f"You are playing a match of {match.tournament.name} (Table {match.table_id}): "
                "finish it before you sit at another table.")
    if matches:
        return (f"Your match of {matches[0].tournament.name} opens as soon as both of you are "
                "free: wait for it before you sit at another table.")
    return None


def waiting_matches(user) -> list[dict]:
    """The player's matches paired and waiting for a table (one of the two is playing
    elsewhere, or has a match paired earlier), first paired first: Your tables, on the home
    and Play pages, lists them beside the tables (a waiting match has none, and the player
    saw it nowhere but on the tournament's own page). Each: the tournament, the opponent."""
    if user is None or not user.is_authenticated:
        return []
    matches = (Match.objects.filter(status=MatchStatus.WAITING,
                                    tournament__status=Status.RUNNING)
               .filter(Q(player_a=user) | Q(player_b=user))
               .select_related("tournament", "player_a", "player_b").order_by("pk"))
    return [{"tournament": m.tournament,
             "opponent": m.player_b if m.player_a_id == user.pk else m.player_a}
            for m in matches]
