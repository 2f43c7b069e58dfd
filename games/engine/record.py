"""Game records: JSON and a short text form, both replaying exactly from the seed.

>>> from games.engine import new_game, apply, legal_actions
>>> s = new_game("classic", seed=3)
>>> for _ in range(5):
...     s = apply(s, legal_actions(s)[0]).state
>>> rec = GameRecord.from_state(s, players=["ann", "bob"])
>>> GameRecord.from_text(rec.to_text()) == rec and GameRecord.from_json(rec.to_json()) == rec
True
>>> replay(rec) == s
True
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from .dealing import new_game
from .errors import EngineError, RecordError
from .events import Event
from .modes import get_mode, mode_from_dict
from .phases import Deal
from .play import apply
from .record_fields import (
    PLAYER_NAME_MAX,
    Move,
    dealer_of,
    field_of,
    list_field,
    move_of,
    player_names,
    seed_of,
    whole_number,
)
from .results import GameResult, HandResult
from .state import GameState

__all__ = ["GameRecord", "Move", "replay", "iter_replay", "RecordError", "PLAYER_NAME_MAX",
           "player_names"]

FORMAT = "gin-record/1"
# a move line's seat and timestamp (ms since the epoch) in the text form
_SEAT = re.compile(r"[0-9]{1,3}")
_MS = re.compile(r"[0-9]{1,18}")


@dataclass
class GameRecord:
    """Mode and settings, players, seed, every move, each hand's result and the final result."""

    mode: str
    settings: dict[str, Any]
    players: list[str]
    seed: int
    moves: list[Move] = field(default_factory=list)
    hand_results: list[HandResult] = field(default_factory=list)
    result: GameResult | None = None
    dealer: int | None = None  # first dealer when it was fixed rather than drawn from the seed
    deals: list[Deal] = field(default_factory=list)

    @property
    def num_players(self) -> int:
        return len(self.players)

    @property
    def totals(self) -> tuple[int, ...] | None:
        return self.result.totals if self.result else None

    # ----------------------------------------------------------------- building
    @classmethod
    def from_state(
        cls,
        state: GameState,
        players: Sequence[str] | None = None,
        timestamps: Sequence[int] | None = None,
    ) -> GameRecord:
        """The record of everything played to reach ``state``."""
        players = list(players) if players else [f"seat{i}" for i in range(state.num_players)]
        if len(players) != state.num_players:
            raise EngineError("one player name per seat is needed")
        moves = state.moves
        ts = list(timestamps) if timestamps is not None else [0] * len(moves)
        if len(ts) != len(moves):
            raise EngineError("one timestamp per move is needed")
        default_dealer = new_game(
            state.mode, state.seed, state.num_players, deals=list(state.deals)
        ).first_dealer
        return cls(
            mode=state.mode.name,
            settings=state.mode.to_dict(),
            players=players,
            seed=state.seed,
            moves=[Move(seat, text, int(t)) for (seat, text), t in zip(moves, ts, strict=True)],
            hand_results=list(state.hand_results),
            result=state.result,
            dealer=None if state.first_dealer == default_dealer else state.first_dealer,
            deals=list(state.deals),
        )

    def new_state(self) -> GameState:
        try:
            mode = mode_from_dict({**self.settings, "name": self.mode})
            return new_game(
                mode, self.seed, self.num_players, dealer=self.dealer, deals=list(self.deals)
            )
        except EngineError as exc:
            raise RecordError(f"record header does not start a game: {exc}") from None

    # ----------------------------------------------------------------- JSON
    def to_dict(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "mode": self.mode,
            "settings": self.settings,
            "players": list(self.players),
            "seed": self.seed,
            "dealer": self.dealer,
            "deals": [d.to_dict() for d in self.deals],
            "moves": [[m.seat, m.action, m.ts] for m in self.moves],
            "hand_results": [h.to_dict() for h in self.hand_results],
            "result": self.result.to_dict() if self.result else None,
        }

    def to_json(self, indent: int | None = None) -> str:
        return json.dumps(self.to_dict(), indent=indent, sort_keys=False)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> GameRecord:
        if d.get("format", FORMAT) != FORMAT:
            raise RecordError(f"unknown record format {d.get('format')!r:.60}")
        for key in ("mode", "players", "seed"):
            if key not in d:  # said as a person reads it, not as Python's KeyError('mode')
                raise RecordError(f"it has no {key!r} field")
        mode = d["mode"]
        if not isinstance(mode, str):
            raise RecordError("the 'mode' field must be text")
        settings = d.get("settings")
        if settings is not None and not isinstance(settings, dict):
            raise RecordError("the 'settings' field must be an object")
        if settings and "name" in settings and settings["name"] != mode:
            # (a Classic game's settings under "straight" replayed as a Straight Gin with
            # knocks, and was shown as one)
            raise RecordError(f"the settings are for {str(settings['name'])[:30]!r}, but the "
                              f"record's mode is {mode[:30]!r}")
        result = d.get("result")
        return cls(
            mode=mode,
            settings=dict(settings or get_mode(mode).to_dict()),
            players=player_names(d["players"]),
            seed=seed_of(d["seed"]),
            moves=[move_of(i, m) for i, m in enumerate(list_field("moves", d.get("moves", [])))],
            hand_results=[field_of("hand_results", HandResult.from_dict, h)
                          for h in list_field("hand_results", d.get("hand_results", []))],
            result=field_of("result", GameResult.from_dict, result) if result else None,
            dealer=dealer_of(d.get("dealer")),
            deals=[field_of("deals", Deal.from_dict, x)
                   for x in list_field("deals", d.get("deals", []))],
        )

    @classmethod
    def from_json(cls, text: str) -> GameRecord:
        try:
            d = json.loads(text)
        except json.JSONDecodeError as exc:
            raise RecordError(f"record is not JSON (line {exc.lineno}): {exc.msg}") from None
        except RecursionError:
            raise RecordError("record JSON is nested too deep") from None
        if not isinstance(d, dict):
            raise RecordError("record JSON must be an object")
        return cls.from_dict(d)

    # ----------------------------------------------------------------- text
    def to_text(self) -> str:
        """Short readable form: headers, then one move per line, hand summaries as '=' lines."""
        base = get_mode(self.mode).to_dict()
        changed = {k: v for k, v in self.settings.items() if base.get(k) != v}
        out = [
            f"Format: {FORMAT}",
            f"Mode: {self.mode}",
            f"Players: {json.dumps(self.players)}",
            f"Seed: {self.seed}",
        ]
        if changed:
            out.append(f"Settings: {json.dumps(changed, sort_keys=True)}")
        if self.dealer is not None:
            out.append(f"Dealer: {self.dealer}")
        for i, deal in enumerate(self.deals):
            out.append(f"Deal {i + 1}: {json.dumps(deal.to_dict())}")
        if self.result is not None:
            out.append("Result: " + " ".join(str(t) for t in self.result.totals))
        out.append("")
        hands = {h.hand_number: h for h in self.hand_results}
        # a hand ends on the move whose replay finished it; summaries follow that move
        ends = _hand_end_moves(self)
        for i, m in enumerate(self.moves):
            out.append(f"{m.seat} {m.action} @{m.ts}" if m.ts else f"{m.seat} {m.action}")
            for hn in ends.get(i, []):
                if hn in hands:
                    out.append(_summary(hands[hn]))
        return "\n".join(out) + "\n"

    @classmethod
    def from_text(cls, text: str) -> GameRecord:
        """Tolerant reader: any case for header keys, blank lines, '#' comments, extra spaces."""
        headers: dict[str, str] = {}
        deals: dict[int, Deal] = {}
        moves: list[Move] = []
        summaries: list[tuple[int, str]] = []
        for lineno, raw in enumerate(text.splitlines(), start=1):
            line = raw.split("#", 1)[0].strip() if not raw.lstrip().startswith("=") else raw.strip()
            if not line:
                continue
            if line.startswith("="):
                summaries.append((lineno, line))
                continue
            head, sep, value = line.partition(":")
            if line[0].isalpha() and sep:
                if moves:
                    raise RecordError(f"line {lineno}: header {head.strip()!r} after the moves")
                key = " ".join(head.lower().split())
                if key.startswith("deal "):
                    if key[5:].strip().isdigit() and int(key[5:]) in deals:
                        raise RecordError(f"line {lineno}: a second {head.strip()!r} header")
                    try:
                        deals[int(key[5:])] = Deal.from_dict(json.loads(value))
                    except (ValueError, KeyError, TypeError, EngineError) as exc:
                        raise RecordError(f"line {lineno}: bad deal: {exc}") from None
                    except RecursionError:
                        raise RecordError(f"line {lineno}: bad deal: nested too deep") from None
                else:
                    if key in headers:  # a second "Mode:" had silently replaced the first
                        raise RecordError(f"line {lineno}: a second {head.strip()!r} header")
                    headers[key] = value.strip()
                continue
            parts = line.split()
            # ASCII digits, and few of them ("²".isdigit(), and int() refuses 4,301 digits)
            if len(parts) not in (2, 3) or not _SEAT.fullmatch(parts[0]):
                quoted = raw.strip()
                quoted = quoted if len(quoted) <= 60 else quoted[:60] + "…"  # (cut: says so)
                raise RecordError(
                    f"line {lineno}: expected 'SEAT ACTION [@MS]', got {quoted!r}")
            ts = 0
            if len(parts) == 3:
                t = parts[2].lstrip("@")
                if not _MS.fullmatch(t):
                    raise RecordError(f"line {lineno}: bad timestamp {parts[2][:40]!r}")
                ts = int(t)
            moves.append(Move(int(parts[0]), parts[1], ts, lineno))
        for key in ("mode", "players", "seed"):
            if key not in headers:
                raise RecordError(f"record text has no '{key.title()}:' header")
        try:
            mode = headers["mode"].strip().lower()
            players = player_names(json.loads(headers["players"]))
            seed = seed_of(headers["seed"])
            changed = json.loads(headers["settings"]) if "settings" in headers else {}
            if not isinstance(changed, dict):
                raise ValueError("Settings must be a JSON object")
            settings = get_mode(mode, **changed).to_dict()
            dealer = whole_number(headers["dealer"], "Dealer") if "dealer" in headers else None
        except (ValueError, EngineError) as exc:  # (a RecordError is an EngineError)
            raise RecordError(f"record header is not valid: {exc}") from None
        except RecursionError:
            raise RecordError("record header is not valid: JSON nested too deep") from None
        rec = cls(
            mode=mode,
            settings=settings,
            players=players,
            seed=seed,
            moves=moves,
            dealer=dealer,
            deals=[deals[k] for k in sorted(deals)],
        )
        final = replay(rec, verify=False)
        rec.hand_results = list(final.hand_results)
        rec.result = final.result
        # verify the summaries and the result line against the replay
        for (lineno, line), hr in zip(summaries, rec.hand_results, strict=False):
            if _norm_summary(line) != _norm_summary(_summary(hr)):
                raise RecordError(
                    f"line {lineno}: hand summary {line!r} does not match the replay "
                    f"({_summary(hr)!r})"
                )
        if len(summaries) > len(rec.hand_results):
            lineno, line = summaries[len(rec.hand_results)]
            raise RecordError(f"line {lineno}: summary of a hand that the moves never finish")
        if "result" in headers:
            claimed = headers["result"].split()
            got = [str(t) for t in rec.result.totals] if rec.result else []
            if claimed != got:
                raise RecordError(
                    f"Result header {headers['result']!r} does not match the replay "
                    f"({' '.join(got) or 'game not over'})"
                )
        return rec

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GameRecord) and self.to_dict() == other.to_dict()


def _summary(h: HandResult) -> str:
    who = "-" if h.winner is None else str(h.winner)
    return f"= hand {h.hand_number}: {h.outcome.value} winner {who} points {h.points}"


def _norm_summary(s: str) -> str:
    return " ".join(s.lower().replace(":", " ").split())


def _hand_end_moves(rec: GameRecord) -> dict[int, list[int]]:
    """Move index -> hand numbers that the move finished (empty when the record does not replay)."""
    out: dict[int, list[int]] = {}
    seen = 0
    try:
        for i, _move, state, _events in iter_replay(rec):
            done = state.hand_results
            if len(done) > seen:
                out[i] = [h.hand_number for h in done[seen:]]
                seen = len(done)
    except RecordError:
        return {}
    return out


def iter_replay(record: GameRecord) -> Iterator[tuple[int, Move, GameState, tuple[Event, ...]]]:
    """Yield (index, move, state after it, events) for every move; raise RecordError on failure."""
    state = record.new_state()
    for i, m in enumerate(record.moves):
        where = f"action {i + 1}" + (f" (line {m.line})" if m.line else "")
        try:
            state, events = apply(state, m.action, seat=m.seat)
        except EngineError as exc:
            raise RecordError(
                f"{where}: seat {m.seat} {m.action!r} does not replay: {exc}"
            ) from None
        yield i, m, state, events


def replay(record: GameRecord, verify: bool = True) -> GameState:
    """Replay every move from the seed; return the final state.

    With ``verify`` the record's hand results and final result must equal the replay's,
    otherwise ``RecordError`` says which hand (or action) differs.
    """
    state = record.new_state()
    for _i, _m, st, _ev in iter_replay(record):
        state = st
    if verify:
        got = state.hand_results
        for j, want in enumerate(record.hand_results):
            if j >= len(got):
                raise RecordError(
                    f"hand {want.hand_number} is recorded but the moves never finish it"
                )
            if got[j] != want:
                raise RecordError(
                    f"hand {want.hand_number}: recorded result {want.to_dict()} differs from the "
                    f"replay {got[j].to_dict()}"
                )
        if record.result is not None and state.result != record.result:
            if state.result is None:
                raise RecordError("final result differs: recorded "
                                  f"{record.result.totals}, replayed: game not over")
            # name the fields that differ: the totals alone read "recorded (66, 270),
            # replayed (66, 270)" when the mode or the columns were what had been edited
            written, replayed = record.result.to_dict(), state.result.to_dict()
            fields = [k for k in sorted(set(written) | set(replayed))
                      if written.get(k) != replayed.get(k)]
            said = "; ".join(f"{k} recorded {str(written.get(k))[:60]}, replayed "
                             f"{str(replayed.get(k))[:60]}" for k in fields[:3])
            raise RecordError(f"final result differs: {said}")
    return state
