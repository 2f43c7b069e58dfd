"""The rules and help page (``/rules/``; ``/help/`` redirects to it).

Every number it states is read from where the site keeps it, so the page cannot drift from
what is built: each mode's settings from the engine (``games.engine.modes``), timeouts and
the disconnection grace from ``games.conf``, the provisional rule and leaderboard activity
from the ratings app, the tournament requirement from the tournaments app. The worked
examples are computed here with the mode's numbers; how long an invitation waits comes from
``social.conf``.
"""
from __future__ import annotations

from django.shortcuts import redirect, render
from django.views.decorators.http import require_safe

from games import conf as games_conf
from games.bots.levels import LEVEL_BY_NUMBER, STAND_IN_LEVEL
from games.engine.cards import Card
from games.engine.modes import MODES
from games.forms import TURN_CHOICES
from leaderboards.ratings import conf as rating_conf
from leaderboards.ratings import skill
from leaderboards.tournaments import services as tournament_services
from social import conf as social_conf


def _minutes(m: int) -> str:
    """15 -> '15 minutes', 60 -> '1 hour', 1440 -> '24 hours'."""
    if m % 60 == 0:
        return f"{m // 60} hour{'s' if m != 60 else ''}"
    return f"{m} minutes"


def _gin_examples(mode) -> dict:
    """Worked examples with the mode's own bonuses."""
    knock = {"knocker": 6, "defender": 24, "laid_off": 5}
    knock["defender_after"] = knock["defender"] - knock["laid_off"]
    knock["points"] = knock["defender_after"] - knock["knocker"]
    gin = {"defender": 31, "points": mode.gin_bonus + 31}
    big = {"defender": 31, "points": mode.big_gin_bonus + 31}
    under = {"knocker": 8, "defender": 5}
    under["points"] = mode.undercut_bonus + under["knocker"] - under["defender"]
    # a whole game: 3 hands won by A (40 + 35 + 27 = 102), 1 by B (18)
    a_hands, b_hands = [40, 35, 27], [18]
    game = {
        "a_hands": a_hands, "b_hands": b_hands, "a_points": sum(a_hands),
        "b_points": sum(b_hands), "game_bonus": mode.game_bonus,
        "a_line": mode.line_bonus * len(a_hands), "b_line": mode.line_bonus * len(b_hands),
    }
    game["a_total"] = game["a_points"] + game["game_bonus"] + game["a_line"]
    game["b_total"] = game["b_points"] + game["b_line"]
    game["margin"] = game["a_total"] - game["b_total"]
    shut = {"a_hands": [40, 35, 30], "line": mode.line_bonus * 3}
    shut["points"] = sum(shut["a_hands"])
    shut["doubled"] = shut["points"] * mode.shutout_multiplier
    shut["total"] = shut["doubled"] + mode.game_bonus + shut["line"]
    return {"knock": knock, "gin": gin, "big": big, "under": under, "game": game, "shut": shut}


def _context() -> dict:
    classic, straight = MODES["classic"], MODES["straight"]
    oklahoma, hollywood, rummy = MODES["oklahoma"], MODES["hollywood"], MODES["rummy"]
    rummy_targets = [{"players": n, "target": t, "hand": rummy.hand_size_for(n)}
                     for n, t in rummy.targets]
    rummy_example = {"cards": [("K", 10), ("7", 7), ("A", 1)], "other": [("Q", 10), ("4", 4)]}
    rummy_example["points"] = sum(v for _, v in rummy_example["cards"] + rummy_example["other"])
    rummy_example["rummy"] = rummy_example["points"] * rummy.going_rummy_multiplier
    playbans = rating_conf.playban_ladder()
    ladder = [{"strikes": n, "bar": _minutes(m), "more": n == max(playbans)}
              for n, m in sorted(playbans.items())]
    return {
        "classic": classic, "straight": straight, "oklahoma": oklahoma,
        "hollywood": hollywood, "rummy": rummy, "rummy_targets": rummy_targets,
        "rummy_example": rummy_example,
        "ex": _gin_examples(classic),
        "straight_ex": {"points": straight.gin_bonus + 31},
        "oklahoma_ex": {
            "seven": oklahoma.hand_knock_limit(Card.parse("7H")),
            "king": oklahoma.hand_knock_limit(Card.parse("KD")),
            "ace": oklahoma.hand_knock_limit(Card.parse("AC")),
            "spade_knock": 13, "spade_points": 13 * oklahoma.hand_multiplier(Card.parse("5S")),
        },
        "max_timeouts": games_conf.get("MAX_TIMEOUTS"),
        "stand_in": LEVEL_BY_NUMBER[STAND_IN_LEVEL].name,
        "first_turn_extra": games_conf.get("FIRST_TURN_EXTRA"),
        "grace": games_conf.get("DISCONNECT_GRACE"),
        "outage_resume": games_conf.get("OUTAGE_RESUME"),
        "open_table_hours": games_conf.get("OPEN_TABLE_TTL") // 3600,
        "computer_left_days": games_conf.get("COMPUTER_TABLE_LEFT") // 86400,
        "provisional_games": skill.PROVISIONAL_GAMES,
        "provisional_deviation": int(skill.PROVISIONAL_SIGMA),
        "start_rating": int(skill.MU),
        "turn_seconds": sorted(int(v) for v, _ in TURN_CHOICES if int(v)),
        "no_show": tournament_services.no_show_seconds(),
        # (at a fast clock, two turns: the page said 120 s, and a player who came at 90 s to
        # a table of 30 s a turn had lost already)
        "no_show_by_turn": [
            (t, tournament_services.no_show_seconds(t)) for t in sorted(
                int(v) for v, _ in TURN_CHOICES if int(v))
            if tournament_services.no_show_seconds(t) < tournament_services.no_show_seconds()],
        "active_days": rating_conf.active_days(),
        "playban_days": rating_conf.playban_window().days,
        "ladder": ladder,
        "min_rated_games": tournament_services.min_rated_games(),
        "invite_ttl": _minutes(max(1, social_conf.get("INVITE_TTL") // 60)),
    }


@require_safe
def rules(request):
    return render(request, "rules.html", _context())


@require_safe
def help_page(request):
    return redirect("rules", permanent=True)
