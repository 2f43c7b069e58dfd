"""Command line: ``python -m games.engine melds AS 2S 3S ...``, ``... selfplay`` and ``... replay
FILE`` (a record: the engine's own, as JSON or text, or a site's export that carries it)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

from .errors import EngineError

if TYPE_CHECKING:
    from .record import GameRecord


def _json_record(text: str) -> GameRecord:
    """A JSON record: the engine's own (``gin-record/1``), or a site's export that carries it
    under ``engine`` (``ginsite-game/1``, docs/records.md)."""
    from .record import GameRecord

    try:
        wrapper = json.loads(text)
    except (ValueError, RecursionError):
        wrapper = None
    if isinstance(wrapper, dict) and isinstance(wrapper.get("engine"), dict):
        return GameRecord.from_dict(wrapper["engine"])
    return GameRecord.from_json(text)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m games.engine", description=__doc__)
    sub = p.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("melds", help="best melds of some cards, as JSON")
    m.add_argument("cards", nargs="+", help="cards like AS 2S TD (commas also accepted)")
    d = sub.add_parser("discards", help="best discards of an 11-card hand, as JSON")
    d.add_argument("cards", nargs="+")
    sp = sub.add_parser("selfplay", help="random legal games checking invariants at every step")
    sp.add_argument("--mode", default="classic")
    sp.add_argument("--games", type=int, default=10)
    sp.add_argument("--seed", type=int, default=0)
    sp.add_argument("--players", type=int, default=2)
    sp.add_argument("--no-check", action="store_true", help="only play (speed)")
    sp.add_argument("--exhaustive", action="store_true", help="apply every legal action each step")
    r = sub.add_parser("replay", help="replay a record file (JSON or text) and print the result")
    r.add_argument("path")
    args = p.parse_args(argv)
    try:
        if args.cmd in ("melds", "discards"):
            from .meld_search import best_discards, best_melds

            cards = [c for a in args.cards for c in a.replace(",", " ").split()]
            if args.cmd == "melds":
                print(json.dumps(best_melds(cards).to_dict()))
            else:
                out = [{"discard": c.text, **r.to_dict()} for c, r in best_discards(cards)]
                print(json.dumps(out))
            return 0
        if args.cmd == "selfplay":
            from .selfplay import run_selfplay

            stats = run_selfplay(
                args.mode,
                args.games,
                args.seed,
                args.players,
                check=not args.no_check,
                exhaustive=args.exhaustive,
            )
            print(json.dumps({"mode": args.mode, "players": args.players, **stats.to_dict()}))
            return 0
        if args.cmd == "replay":
            from .record import GameRecord, replay

            with open(args.path, encoding="utf-8") as fh:
                text = fh.read()
            rec = (
                _json_record(text)
                if text.lstrip().startswith("{")
                else GameRecord.from_text(text)
            )
            state = replay(rec)
            print(
                json.dumps(
                    {
                        "hands": len(state.hand_results),
                        "result": state.result and state.result.to_dict(),
                    }
                )
            )
            return 0
    except EngineError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except AssertionError as exc:
        print(f"invariant failed: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
