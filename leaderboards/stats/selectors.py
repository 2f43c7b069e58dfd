"""Reads of the statistics: tables per mode, favourite opponents, head to head, charts."""
from __future__ import annotations

from typing import Any

from django.db.models import Count, Exists, OuterRef, Sum
from django.db.models.functions import TruncMonth
from django.utils import timezone
from django.utils.html import format_html
from django.utils.safestring import mark_safe

from games.bots.levels import LEVEL_TABLE
from games.models import GamePlayer, Mode

from .models import ALL_MODES, PEOPLE, PRIVATE, GameFacts, Opponent, PlayerStats

# every column of PlayerStats (the best game's big JSON columns stay unread)
STATS_FIELDS = [f.name for f in PlayerStats._meta.concrete_fields]
MODE_ORDER = [ALL_MODES, *Mode.values]
MODE_NAMES = {ALL_MODES: "All modes", **dict(Mode.choices)}
OPPONENT_NAMES = {PEOPLE: "Against people", PRIVATE: "At private tables",
                  **{level.key: f"Against the computer · {level.name}" for level in LEVEL_TABLE}}


def _n(value, suffix: str = "") -> str:
    return "–" if value is None else f"{value}{suffix}"


def _duration(seconds: int) -> str:
    hours, rest = divmod(int(seconds), 3600)
    return f"{hours} h {rest // 60} min" if hours else f"{rest // 60} min"


def figures(s: PlayerStats, *, own: bool,
            modes: frozenset[str] | None = None) -> list[tuple[str, str, str | None]]:
    """(label, value, link or None) of one row, in reading order; the figures that cannot
    happen in a mode are left out (no knocks in Straight Gin, no gins in Rummy), in the
    ``all`` row those that cannot happen in any of the ``modes`` it sums."""
    mode = s.mode
    played = modes if mode == ALL_MODES and modes else frozenset([mode])
    gin = bool(played - {"rummy"})
    knocking = bool(played - {"rummy", "straight"})
    rummy = "rummy" in played
    out = [
        ("Games", str(s.games), None),
        ("Won · lost · tied", f"{s.wins} · {s.losses} · {s.ties}", None),
        ("Win rate", _n(s.win_rate, "%"), None),
        ("Hands played · won", f"{s.hands_played} · {s.hands_won}"
         + (f" ({s.hand_win_rate}%)" if s.hand_win_rate is not None else ""), None),
        ("Points per hand", _n(s.points_per_hand), None),
    ]
    if gin:
        out.append(("Gins · big gins", f"{s.gins} · {s.big_gins}", None))
        if knocking:
            out += [
                ("Knocks", str(s.knocks), None),
                ("Average deadwood when knocking", _n(s.average_knock_deadwood), None),
                ("Undercuts given · received", f"{s.undercuts_given} · {s.undercuts_received}",
                 None),
            ]
        out.append(("Drawn hands", str(s.hands_drawn), None))
    if rummy:
        out += [("Going rummy", str(s.rummies), None),
                ("Stalemates (lost hands)", str(s.stalemates), None)]
    best, link = "–", None
    if s.best_margin is not None:
        best = f"won by {s.best_margin} point{'' if s.best_margin == 1 else 's'}"
        game = s.best_game
        if game is not None and (own or not getattr(s, "best_private", True)):
            link = game.get_absolute_url()
    out += [
        ("Best game", best, link),
        ("Winning streak · longest", f"{s.current_streak} · {s.longest_streak}", None),
        ("Time played", _duration(s.seconds_played), None),
        ("Resigned · timed out · abandoned",
         f"{s.resignations} · {s.timeouts} · {s.abandonments}", None),
    ]
    return out


def figures_html(s: PlayerStats, *, own: bool, modes: frozenset[str] | None = None) -> str:
    """The figures as a ``<dl>`` (built here rather than in a template loop: a player's
    statistics page shows up to 30 of these, and the loop was much slower; docs/operations.md,
    "Measured figures")."""
    items = []
    for label, value, link in figures(s, own=own, modes=modes):
        if link:
            items.append(format_html('<div><dt>{}</dt><dd><a href="{}">{}</a></dd></div>',
                                     label, link, value))
        else:
            items.append(format_html("<div><dt>{}</dt><dd>{}</dd></div>", label, value))
    return format_html('<dl class="stat-grid">{}</dl>', mark_safe("".join(items)))  # noqa: S308


def _by_mode(rows: list[PlayerStats], own: bool) -> list[dict[str, Any]]:
    by = {r.mode: r for r in rows}
    played = frozenset(by) - {ALL_MODES}  # what the "all" row sums
    return [{"mode": m, "name": MODE_NAMES[m], "stats": by[m],
             "figures_html": figures_html(by[m], own=own, modes=played)}
            for m in MODE_ORDER if m in by]


def stats_tables(*, user, opponents: tuple[str, ...] = (PEOPLE,),
                 own: bool = False) -> list[dict[str, Any]]:
    """Per opponent kind (in ``opponents`` order, empty ones left out): its rows by mode,
    ``all`` first, with their figures. ``own``: the viewer is ``user`` (links to their
    private games). One query."""
    rows = list(
        PlayerStats.objects.filter(user=user, opponents__in=opponents)
        .select_related("best_game")
        .only(*STATS_FIELDS, "best_game__id")
        # the game's privacy as its seats keep it (it outlives the table's row)
        .annotate(best_private=Exists(GamePlayer.objects.filter(
            game_id=OuterRef("best_game_id"), private=True)))
    )
    out = []
    for kind in opponents:
        mine = [r for r in rows if r.opponents == kind]
        if mine:
            out.append({"opponents": kind, "name": OPPONENT_NAMES[kind],
                        "modes": _by_mode(mine, own)})
    return out


def favourite_opponents(*, user, limit: int = 5) -> list[Opponent]:
    return list(
        Opponent.objects.filter(user=user).select_related("opponent")
        .order_by("-games", "-last_game_at")[:limit]
    )


def head_to_head(*, user, opponent) -> Opponent | None:
    """``user``'s record against ``opponent`` (None when they never played)."""
    if opponent is None or not getattr(opponent, "is_authenticated", False):
        return None
    if opponent.pk == user.pk:
        return None
    return Opponent.objects.filter(user=user, opponent=opponent).first()


def results_by_mode(tables: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Bars for the results chart: per mode (not ``all``), over every table given (kinds of
    opponents summed), wins, losses and ties as widths in percent of the largest number of
    games (ties of the rounding go to the last bar)."""
    sums: dict[str, dict[str, int]] = {}
    for t in tables:
        for m in t["modes"]:
            if m["mode"] != ALL_MODES:
                s, total = m["stats"], sums.setdefault(m["mode"], dict.fromkeys(
                    ("games", "wins", "losses", "ties"), 0))
                for key in total:
                    total[key] += getattr(s, key)
    if not sums:
        return []
    most = max(total["games"] for total in sums.values()) or 1
    bars = []
    for mode in MODE_ORDER:
        if mode not in sums:
            continue
        s = sums[mode]
        bars.append({
            "name": MODE_NAMES[mode], **s,
            "w": round(300 * s["wins"] / most, 1), "l": round(300 * s["losses"] / most, 1),
            "t": round(300 * s["ties"] / most, 1),
        })
        bars[-1]["lx"] = bars[-1]["w"]
        bars[-1]["tx"] = round(bars[-1]["w"] + bars[-1]["l"], 1)
    return bars


def points_per_hand_by_month(*, user, opponents: tuple[str, ...] = (PEOPLE,),
                             months: int = 12) -> dict[str, Any] | None:
    """Points per hand, month by month over the last ``months`` calendar months (the months
    with games), drawn as an SVG polyline in a 320 x 120 box. None when there is nothing to
    draw. Reads only those months' rows (the ``user, finished_at`` index)."""
    now = timezone.now()
    year, month = divmod(now.year * 12 + now.month - 1 - (months - 1), 12)
    since = now.replace(year=year, month=month + 1, day=1, hour=0, minute=0, second=0,
                        microsecond=0)
    data = list(
        GameFacts.objects.filter(user=user, opponents__in=opponents, finished_at__gte=since)
        .annotate(month=TruncMonth("finished_at"))
        .values("month")
        .annotate(points=Sum("hand_points"), hands=Sum("hands_played"), games=Count("id"))
        .order_by("-month")[:months]
    )
    data = [d for d in reversed(data) if d["hands"]]
    if not data:
        return None
    values = [d["points"] / d["hands"] for d in data]
    highest = max(values)
    top = highest or 1.0
    n = len(values)
    points = []
    for i, (d, v) in enumerate(zip(data, values, strict=True)):
        x = 20 + (280 * i / (n - 1) if n > 1 else 140)
        y = 105 - 90 * v / top
        points.append({"x": round(x, 1), "y": round(y, 1), "value": round(v, 1),
                       "month": d["month"], "games": d["games"]})
    return {
        "points": points,
        "polyline": " ".join(f"{p['x']},{p['y']}" for p in points),
        # the scale's top, written at the top of the chart; none for a flat line at 0 (its
        # scale of 1.0 was read as the value: an audit)
        "top": round(highest, 1) if highest else None,
    }


# ------------------------------------------------------------------------- accuracy
#
# The Expert's analysis of finished games (docs/analysis.md) is kept by ``games``; its
# per-seat summaries are read through ``games.selectors`` (``leaderboards`` sits above
# ``games``), never copied here.


def accuracy_summary(*, user, viewer, months: int = 12) -> dict[str, Any] | None:
    """``user``'s average accuracy per mode over their analysed games, and its trend month by
    month (every mode, the last ``months`` months with analysed games) drawn as an SVG
    polyline in a 320 x 130 box on a 0-100 % scale. Private games count only for the user
    themself. None when no game of theirs is analysed."""
    from games import selectors as games_selectors
    from games.models import Mode

    rows = games_selectors.accuracy_rows(user=user, viewer=viewer)
    if not rows:
        return None
    labels = dict(Mode.choices)
    for r in rows:
        r["name"] = labels.get(r["mode"], r["mode"])
    data = games_selectors.accuracy_by_month(user=user, viewer=viewer)[-months:]
    n = len(data)
    points = []
    for i, d in enumerate(data):
        x = 20 + (280 * i / (n - 1) if n > 1 else 140)
        y = 105 - 90 * d["accuracy"] / 100
        points.append({"x": round(x, 1), "y": round(y, 1), "value": d["accuracy"],
                       "month": d["month"], "games": d["games"]})
    return {
        "modes": rows,
        "games": sum(r["games"] for r in rows),
        "trend": {"points": points,
                  "polyline": " ".join(f"{p['x']},{p['y']}" for p in points)} if points else None,
    }


def has_finished_games(user) -> bool:
    """Whether ``user`` has a stored game, counted in their figures or not (a game one of its
    players never came to counts for nobody: docs/stats.md)."""
    return GamePlayer.objects.filter(user=user).exists()
