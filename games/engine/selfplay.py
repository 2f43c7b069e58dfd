"""Seeded random self-play that checks the engine's invariants at every step (our "perft")."""

from __future__ import annotations

import json
import random
import re
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from .actions import Action
from .cards import FULL_MASK, full_deck
from .dealing import new_game
from .errors import EngineError, IllegalActionError
from .legality import legal_actions
from .meld_search import deadwood_of_mask
from .phases import Phase
from .play import apply, is_legal
from .seat_views import view_for
from .state import GameState
from .turn import action_card

__all__ = ["random_policy", "play_game", "run_selfplay", "SelfplayStats", "InvariantError"]

_PRIORITY = {"big_gin", "gin", "knock", "meld", "layoff", "go_out", "accept_layoffs"}
_CARD_RE = re.compile(r"\b[A2-9TJQK][CDHS]\b")


class InvariantError(AssertionError):
    """An engine invariant failed during self-play."""


def random_policy(
    state: GameState, rng: random.Random, actions: list[Action] | None = None
) -> Action:
    """A random legal action, nudged towards ending hands so that games finish."""
    acts = actions if actions is not None else legal_actions(state)
    good = [a for a in acts if a.kind in _PRIORITY]
    if good and rng.random() < 0.8:
        return rng.choice(good)
    if state.phase in (Phase.DISCARD, Phase.PLAY) and rng.random() < 0.75:
        discards = [(a, c) for a in acts if a.kind == "discard" and (c := a.card) is not None]
        if discards:
            m = 0
            for c in state.hands[state.turn]:
                m |= c.bit
            return min(discards, key=lambda ac: (deadwood_of_mask(m ^ ac[1].bit), rng.random()))[0]
    return rng.choice(acts)


def _fingerprint(s: GameState) -> tuple[Any, ...]:
    return (
        tuple(tuple(h) for h in s.hands),
        tuple(s.stock),
        tuple(s.discard),
        tuple(s.face_down),
        s.phase,
        s.turn,
        tuple((k, m) for k, m in s.table),
        tuple(s.scores),
        len(s.hand_results),
        s.actions_played,
        s._hist_len,
    )


_ALL_TEXTS: list[str] = []


def _illegal_candidates() -> list[str]:
    if not _ALL_TEXTS:
        kinds = ["discard", "knock", "gin", "go_out"]
        for c in full_deck():
            for k in kinds:
                _ALL_TEXTS.append(f"{k}:{c}")
            for i in range(4):
                _ALL_TEXTS.append(f"layoff:{c}>{i}")
        _ALL_TEXTS.extend(
            [
                "take_upcard",
                "pass",
                "draw:stock",
                "draw:discard",
                "big_gin",
                "accept_layoffs",
                "done",
            ]
        )
        _ALL_TEXTS.extend(["meld:5H,6H,7H", "meld:7C,7D,7H", "meld:AS,2S,3S,4S"])
    return _ALL_TEXTS


def check_state(s: GameState) -> None:
    if s.card_count() != 52 or s.all_cards_mask() != FULL_MASK:
        raise InvariantError(f"cards not conserved: {s.card_count()} cards")
    if not s.is_over and not legal_actions(s):
        raise InvariantError(f"no legal action in {s!r}")
    if s.is_over and (s.result is None or legal_actions(s)):
        raise InvariantError("game over without a result, or with legal actions")


def check_views(s: GameState, public: set[str] | None = None) -> None:
    """Each seat's view shows its own hand and, of other cards, only ``public`` ones (and the
    knocker's own face-down card to the knocker: its history names the card it drew).

    ``public`` is the caller's independent model of what has been shown this hand (upcard,
    discards, melds, lay-offs, showdowns); without it only the basic checks run.
    """
    n = s.num_players
    for seat in range(n):
        v = view_for(s, seat)
        if v["hand"] != [c.text for c in sorted(s.hands[seat])]:
            raise InvariantError("view hand differs from the seat's hand")
        if ("seed" in v) != s.is_over:
            raise InvariantError("the seed is in a view before the game is over")
        if s.is_over or public is None:
            continue
        v = dict(v)
        for k in ("last_hand", "settings", "score_sheet", "result"):
            v.pop(k, None)
        seen = set(_CARD_RE.findall(json.dumps(v)))
        hidden = {c.text for c in full_deck()} - {c.text for c in s.hands[seat]} - public
        if s.showdown is not None and s.showdown.knocker == seat:
            hidden -= {c.text for c in s.face_down}  # the knocker's own card, face down
        leak = seen & hidden
        if leak:
            raise InvariantError(f"view for seat {seat} leaks {sorted(leak)} in {s!r}")


def _update_public(public: set[str], before: GameState, a: Action, after: GameState) -> None:
    if after.hand_number != before.hand_number or after.is_over:
        public.clear()
        if after.upcard is not None:
            public.add(after.upcard.text)
        return
    k = a.kind
    if k in ("discard", "layoff"):
        public.add(action_card(a).text)
    elif k == "meld":
        public.update(c.text for c in a.cards)
    elif k in ("knock", "gin", "big_gin"):
        seat = before.turn
        public.update(c.text for c in before.hands[seat] if a.card is None or c != a.card)
    elif k == "accept_layoffs" and after.showdown is not None:
        public.update(text for text, _ in after.showdown.layoffs)


@dataclass
class SelfplayStats:
    games: int = 0
    actions: int = 0
    hands: int = 0
    checked_legal: int = 0
    checked_illegal: int = 0
    outcomes: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "games": self.games,
            "actions": self.actions,
            "hands": self.hands,
            "checked_legal": self.checked_legal,
            "checked_illegal": self.checked_illegal,
            "outcomes": dict(sorted(self.outcomes.items())),
            "seconds": round(self.seconds, 3),
            "actions_per_second": round(self.actions / self.seconds) if self.seconds else None,
        }


def play_game(
    mode: str,
    seed: int,
    num_players: int = 2,
    *,
    check: bool = True,
    exhaustive: bool = False,
    illegal_samples: int = 2,
    view_every: int = 1,
    max_actions: int = 200_000,
    stats: SelfplayStats | None = None,
) -> GameState:
    """Play one seeded random game, checking invariants at every step when ``check``."""
    rng = random.Random(f"selfplay:{seed}")
    s = new_game(mode, seed, num_players)
    stats = stats if stats is not None else SelfplayStats()
    step = 0
    public = {s.upcard.text} if s.upcard else set()
    while not s.is_over:
        acts = legal_actions(s)
        if check:
            check_state(s)
            fp = _fingerprint(s)
            to_try = acts if exhaustive else rng.sample(acts, min(2, len(acts)))
            for a in to_try:
                if not is_legal(s, a, seat=s.to_act):
                    raise InvariantError(f"is_legal disagrees with legal_actions on {a}")
                new, _ = apply(s, a, seat=s.to_act)
                check_state(new)
                stats.checked_legal += 1
            legal_texts = {str(a) for a in acts}
            pool = _illegal_candidates()
            tries = 0
            found = 0
            while found < illegal_samples and tries < 50:
                tries += 1
                t = rng.choice(pool)
                if t in legal_texts:
                    continue
                found += 1
                try:
                    apply(s, t, seat=s.to_act)
                except IllegalActionError:
                    pass
                else:
                    raise InvariantError(f"illegal action {t} applied in {s!r}")
                if is_legal(s, t):
                    raise InvariantError(f"is_legal accepts {t}")
                stats.checked_illegal += 1
            wrong = (s.turn + 1) % s.num_players
            try:
                apply(s, acts[0], seat=wrong)
            except IllegalActionError:
                pass
            else:
                raise InvariantError("a seat acted out of turn")
            if _fingerprint(s) != fp:
                raise InvariantError("apply mutated its input state")
            if view_every and step % view_every == 0:
                check_views(s, public)
        a = random_policy(s, rng, acts)
        before = len(s.hand_results)
        prev = s
        s, _ = apply(s, a, seat=s.to_act)
        if check:
            _update_public(public, prev, a, s)
        stats.actions += 1
        for hr in s.hand_results[before:]:
            stats.hands += 1
            stats.outcomes[hr.outcome.value] += 1
        step += 1
        if step > max_actions:
            raise InvariantError(f"game {mode}/{seed} did not finish in {max_actions} actions")
    if check:
        check_state(s)
        check_views(s)
        rt = GameState.from_dict(json.loads(json.dumps(s.to_dict())))
        if rt != s:
            raise InvariantError("to_dict/from_dict does not round-trip")
    stats.games += 1
    return s


def run_selfplay(
    mode: str,
    games: int,
    seed: int,
    num_players: int = 2,
    *,
    check: bool = True,
    exhaustive: bool = False,
) -> SelfplayStats:
    stats = SelfplayStats()
    t0 = time.perf_counter()
    for g in range(games):
        try:
            play_game(mode, seed + g, num_players, check=check, exhaustive=exhaustive, stats=stats)
        except EngineError as exc:
            raise InvariantError(f"game seed {seed + g}: engine error {exc!r}") from exc
    stats.seconds = time.perf_counter() - t0
    return stats
