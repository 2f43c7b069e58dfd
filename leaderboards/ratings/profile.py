"""The "Ratings" section of the public profile: the player's rating per mode and a rating
history chart per mode, drawn on the server as SVG (one linked point per game, with a
tooltip), so no chart library and no inline script are needed. Games at private tables are
charted for the player only."""
from __future__ import annotations

from typing import Any

from django.urls import reverse
from django.utils import dateformat, timezone

from accounts.profile_sections import ProfileSection, profile_section_register
from core.templatetags.deltas import signed

from ..models import RatingChange
from . import selectors, skill

WIDTH, HEIGHT = 600, 200
# (room at the left for a four-digit tick at a phone's larger size, static/css/ratings.css)
PAD_LEFT, PAD_RIGHT, PAD_TOP, PAD_BOTTOM = 60, 12, 12, 24


def _ticks(low: int, high: int) -> list[int]:
    span = max(1, high - low)
    step = next(s for s in (10, 20, 25, 50, 100, 200, 250, 500, 1000) if span / s <= 4)
    first = -(-low // step) * step
    return list(range(first, high + 1, step))


def _day(when) -> str:
    """"6 Dec 2026" in the viewer's time zone: the templates' ``|date:"j M Y"``."""
    return dateformat.format(timezone.localtime(when), "j M Y")


def history_chart(rows: list[RatingChange]) -> dict[str, Any] | None:
    """Coordinates of the chart of ``rows`` (oldest first), or None without history."""
    if not rows:
        return None
    values = [rows[0].rating_before] + [r.rating_after for r in rows]
    low, high = min(values), max(values)
    margin = max(10, (high - low) // 10)
    low, high = low - margin, high + margin
    inner_w = WIDTH - PAD_LEFT - PAD_RIGHT
    inner_h = HEIGHT - PAD_TOP - PAD_BOTTOM

    def x(i: int) -> float:
        return round(PAD_LEFT + inner_w * (i / max(1, len(values) - 1)), 1)

    def y(v: float) -> float:
        return round(PAD_TOP + inner_h * (1 - (v - low) / (high - low)), 1)

    points = []
    for i, r in enumerate(rows, start=1):
        delta = r.rating_after - r.rating_before
        points.append({
            "x": x(i), "y": y(r.rating_after), "url": reverse("games:game", args=[r.game_id]),
            "title": f"{_day(r.finished_at)}: {skill.label(r.rating_after, r.provisional)}"
                     f" ({signed(delta)}), game {r.game_id}",
        })
    return {
        "width": WIDTH, "height": HEIGHT,
        "line": " ".join(f"{x(i)},{y(v)}" for i, v in enumerate(values)),
        "points": points,
        "ticks": [{"y": y(t), "label": t} for t in _ticks(low, high)],
        "left": PAD_LEFT, "right": WIDTH - PAD_RIGHT, "bottom": HEIGHT - PAD_BOTTOM,
        "first": _day(rows[0].finished_at), "last": _day(rows[-1].finished_at),
        "games": len(rows),
    }


def section_context(*, profile_user, viewer) -> dict[str, Any]:
    """The player sees every rated game on their chart; anybody else only the games of
    public tables: a private game's point would tell whom the player met, when, and who lost.
    The rating itself (and the count of rated games) includes them."""
    own = viewer is not None and viewer.is_authenticated and viewer.pk == profile_user.pk
    modes = selectors.user_ratings(profile_user)
    for m in modes:
        m["chart"] = history_chart(selectors.rating_history(
            profile_user, m["mode"], public_only=not own)) if m["games"] else None
    return {"modes": modes, "any_games": any(m["games"] for m in modes), "own": own,
            "threshold": int(skill.PROVISIONAL_SIGMA), "games_needed": skill.PROVISIONAL_GAMES}


def register() -> None:
    profile_section_register(ProfileSection(
        key="ratings", title="Ratings", template_name="leaderboards/_profile_ratings.html",
        get_context=section_context, order=20,
    ))
