"""Bot-vs-bot matches on duplicate deals, with statistics. Pure Python (no Django).

``run_match`` plays whole games to the mode's target. Every deal (game seed) is played once
per seat arrangement: two players swap seats; three or four rotate through every seat. The
result holds each bot's win rate with a 95% Wilson interval, points per hand, gin / knock /
undercut counts and decision-time percentiles (the records and statistics: match_stats.py).

Command line (the same as ``python manage.py botmatch``)::

    python -m games.bots.match --mode classic --a expert --b baseline --games 400 --seed 1 --jobs 2
"""

from __future__ import annotations

import argparse
import inspect
import json
import math
import os
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import Any, TextIO

from games.engine import GameState, apply, get_mode, legal_actions, new_game, view_for

from . import get_bot
from .expert_search import SearchingBot
from .match_stats import COUNTERS, GameStats, MatchSpec, format_report, summarise

__all__ = ["play_game", "run_match", "add_arguments", "run_from_options", "main"]


def _arrangements(lineup: Sequence[int]) -> list[list[int]]:
    """Two players: both seatings. More: every rotation of the lineup."""
    n = len(lineup)
    return [[lineup[(s + r) % n] for s in range(n)] for r in range(n)]


def play_game(
    mode: str,
    seat_bots: Sequence[Any],
    seed: int,
    *,
    settings: dict[str, Any] | None = None,
    on_decision: Callable[[int, float], None] | None = None,
    max_actions: int = 200_000,
) -> GameState:
    """Play one whole game; return the final state. ``on_decision(seat, seconds)`` times bots."""
    state = new_game(mode, seed=seed, num_players=len(seat_bots), settings=settings or None)
    for bot in seat_bots:
        reset = getattr(bot, "reset", None)
        if callable(reset):
            reset()
    perf = time.perf_counter
    for _ in range(max_actions):
        seat = state.to_act
        if seat is None:  # the game is over
            return state
        legal = legal_actions(state)
        view = view_for(state, seat)
        t0 = perf()
        action = seat_bots[seat].choose(view, legal)
        dt = perf() - t0
        if on_decision is not None:
            on_decision(seat, dt)
        if action not in legal:
            raise RuntimeError(f"bot in seat {seat} chose illegal action {action!r}")
        state = apply(state, action, seat=seat)[0]
    raise RuntimeError("game did not finish")


def _play_deal(spec: MatchSpec, deal: int) -> list[GameStats]:
    out = []
    settings = dict(spec.settings)
    options = dict(spec.bot_options)
    for arr_i, seats in enumerate(_arrangements(spec.lineup)):
        game_seed = spec.seed * 1_000_003 + deal
        bots = []
        for s, label in enumerate(seats):
            name = spec.bots[label]
            opts = options if name == "expert" else {}
            bots.append(get_bot(name, seed=f"{spec.seed}:{deal}:{arr_i}:{s}", **opts))
        times: dict[int, list[float]] = {label: [] for label in set(seats)}

        def record(
            seat: int, dt: float, seats: list[int] = seats, times: dict[int, list[float]] = times
        ) -> None:
            times[seats[seat]].append(dt)

        state = play_game(spec.mode, bots, game_seed, settings=settings, on_decision=record)
        res = state.result
        if res is None:
            raise RuntimeError("play_game returned an unfinished game")
        nl = len(spec.bots)
        totals = [0] * nl
        for s, label in enumerate(seats):
            totals[label] += res.totals[s]
        gs = GameStats(
            deal=deal,
            arrangement=arr_i,
            seats=list(seats),
            winner=seats[res.winner] if res.winner is not None else None,
            totals=totals,
            hands=len(state.hand_results),
            times=times,
        )
        per = {label: dict.fromkeys(COUNTERS, 0) for label in set(seats)}
        for hr in state.hand_results:
            for label in per:
                per[label]["hands"] += 1
            oc = hr.outcome.value
            # gin and going out have a winner; a knock (won or undercut) a knocker and defender
            winner, knocker, defender = hr.winner, hr.knocker, hr.defender
            if winner is not None:
                w = per[seats[winner]]
                w["hands_won"] += 1
                w["hand_points"] += hr.points
            if oc in ("drawn", "stalemate"):
                for label in per:
                    per[label]["drawn" if oc == "drawn" else "stalemate"] += 1
                continue
            if oc in ("gin", "big_gin") and winner is not None:
                per[seats[winner]][oc] += 1
            if oc in ("knock", "undercut") and knocker is not None and defender is not None:
                per[seats[knocker]]["knocks"] += 1
                if oc == "knock":
                    per[seats[knocker]]["knock_won"] += 1
                else:
                    per[seats[defender]]["undercut_won"] += 1
                    per[seats[knocker]]["undercut_suffered"] += 1
            if oc == "out" and hr.going_rummy and winner is not None:
                per[seats[winner]]["going_rummy"] += 1
        gs.per_label = per
        out.append(gs)
    return out


def run_match(
    mode: str,
    bots: Sequence[str],
    games: int,
    *,
    seed: int = 0,
    jobs: int = 1,
    num_players: int = 2,
    lineup: Sequence[int] | None = None,
    settings: dict[str, Any] | None = None,
    bot_options: dict[str, Any] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Play ``games`` games (rounded up to whole deals) and return the statistics dict.

    ``bots`` names one bot per label; ``lineup`` gives the label of each seat (default: A, B
    for two players; A, B, B... for more when two bots are named; one seat each otherwise).
    """
    get_mode(mode, **(settings or {}))  # validate early
    bots = tuple(bots)
    for name in bots:
        get_bot(name, seed=0, **(bot_options or {}) if name == "expert" else {})
    if lineup is None:
        if len(bots) == num_players:
            lineup = tuple(range(num_players))
        elif len(bots) == 2:
            lineup = (0,) + (1,) * (num_players - 1)
        else:
            raise ValueError(f"{len(bots)} bots for {num_players} seats: give a lineup")
    lineup = tuple(lineup)
    if len(lineup) != num_players or any(not 0 <= i < len(bots) for i in lineup):
        raise ValueError("lineup must name a bot label for every seat")
    spec = MatchSpec(
        mode=mode,
        bots=bots,
        lineup=lineup,
        seed=seed,
        settings=tuple(sorted((settings or {}).items())),
        bot_options=tuple(sorted((bot_options or {}).items())),
    )
    per_deal = len(_arrangements(lineup))
    deals = max(1, math.ceil(games / per_deal))
    total = deals * per_deal
    results: list[GameStats] = []
    t0 = time.perf_counter()
    if jobs <= 1:
        for d in range(deals):
            results.extend(_play_deal(spec, d))
            if progress:
                progress(len(results), total)
    else:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            futs = [pool.submit(_play_deal, spec, d) for d in range(deals)]
            for fut in as_completed(futs):
                results.extend(fut.result())
                if progress:
                    progress(len(results), total)
    results.sort(key=lambda g: (g.deal, g.arrangement))
    return summarise(spec, results, time.perf_counter() - t0)


class ProgressBar:
    """A one-line progress bar on a stream (stderr by default)."""

    def __init__(self, stream: TextIO | None = None, width: int = 30) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.width = width
        self.t0 = time.perf_counter()

    def __call__(self, done: int, total: int) -> None:
        frac = done / total if total else 1.0
        filled = int(self.width * frac)
        el = time.perf_counter() - self.t0
        eta = el / frac - el if frac > 0 else 0.0
        self.stream.write(
            f"\r[{'#' * filled}{'.' * (self.width - filled)}] {done}/{total} games "
            f"{el:6.0f}s elapsed, ~{eta:5.0f}s left"
        )
        if done >= total:
            self.stream.write("\n")
        self.stream.flush()


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--mode", default="classic", help="classic, straight, oklahoma, hollywood, rummy"
    )
    parser.add_argument("--a", default="expert", help="bot A: level, panel name or module:Class")
    parser.add_argument("--b", default="baseline", help="bot B")
    parser.add_argument(
        "--bots", default=None, help="comma-separated bots, one per seat (overrides --a/--b)"
    )
    parser.add_argument("--players", type=int, default=None, help="seats (rummy: 2-4)")
    parser.add_argument(
        "--games", type=int, default=100, help="games to play (rounded up to whole deals)"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    parser.add_argument(
        "--target", type=int, default=None, help="override the game target (quick runs)"
    )
    parser.add_argument(
        "--time-budget", type=float, default=None, help="Expert seconds per decision"
    )
    parser.add_argument(
        "--expert-option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="an Expert option (repeatable), e.g. match_equity=0",
    )
    parser.add_argument("--json", action="store_true", help="print the statistics as JSON")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")


def _expert_options() -> set[str]:
    """The Expert's options a command line can set (its search's keyword parameters)."""
    params = inspect.signature(SearchingBot.__init__).parameters
    return set(params) - {"self", "rng", "params", "options"}


def _option_value(text: str) -> Any:
    """An option's value from the command line: a number, true/false, or the text itself."""
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return {"true": True, "false": False}.get(text.lower(), text)


def run_from_options(opts: dict[str, Any], stdout: TextIO, stderr: TextIO) -> dict[str, Any]:
    if opts.get("bots"):
        bots = [b.strip() for b in opts["bots"].split(",") if b.strip()]
        players = opts.get("players") or len(bots)
    else:
        bots = [opts["a"], opts["b"]]
        players = opts.get("players") or 2
    if opts["games"] < 1:
        raise ValueError("--games must be at least 1")
    if opts["jobs"] < 1:
        raise ValueError("--jobs must be at least 1")
    settings: dict[str, Any] = {}
    if opts.get("target") is not None:
        if opts["mode"] == "rummy":
            settings["targets"] = ((2, opts["target"]), (3, opts["target"]), (4, opts["target"]))
        else:
            settings["target"] = opts["target"]
    bot_options: dict[str, Any] = {}
    if opts.get("time_budget") is not None:
        bot_options["time_budget"] = opts["time_budget"]
    for item in opts.get("expert_option") or ():
        key, sep, value = item.partition("=")
        if not sep or not key.strip().isidentifier():
            raise ValueError(f"--expert-option takes KEY=VALUE, not {item!r}")
        if key.strip() not in _expert_options():
            raise ValueError(f"the Expert has no option {key.strip()!r}")
        bot_options[key.strip()] = _option_value(value.strip())
    progress = None if opts.get("no_progress") else ProgressBar(stderr)
    stats = run_match(
        opts["mode"],
        bots,
        opts["games"],
        seed=opts["seed"],
        jobs=opts["jobs"],
        num_players=players,
        settings=settings,
        bot_options=bot_options,
        progress=progress,
    )
    if opts.get("json"):
        stdout.write(json.dumps(stats, indent=2) + "\n")
    else:
        stdout.write(format_report(stats) + "\n")
    return stats


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m games.bots.match", description=__doc__.split("\n")[0]
    )
    add_arguments(parser)
    args = parser.parse_args(argv)
    try:
        run_from_options(vars(args), sys.stdout, sys.stderr)
    except ValueError as exc:
        parser.error(str(exc))
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    raise SystemExit(main())
