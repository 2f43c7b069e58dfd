"""Replay a record and judge every decision from the deciding seat's view at that ply.

For each move: the seat's view before it (``view_for``: own hand, the discard pile, the public
history of the hand; never the opponent's cards or the stock order), every legal option
valued by the Expert's evaluator (``gin_values``, ``rummy_values``) on samples drawn from a
generator seeded by the analysis seed and the move's index, the option played, the best and
the loss. Sample counts are fixed (``Budget``), never timed, so the same record and seed give
the same numbers on any machine and under any load.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from games.engine import GameRecord, GameState, Phase, iter_replay, legal_actions, view_for
from games.engine.actions import Action

from ..expert import ExpertBot
from ..knowledge import from_view
from .gin_values import gin_valuer, layoff_values
from .report import (
    ANALYSER_VERSION,
    FORCED,
    JUDGEMENTS,
    PLAYED_ON,
    TIMED_OUT,
    Decision,
    GameAnalysis,
    Option,
    judge,
    summarise,
)
from .rummy_values import rummy_valuer
from .sampling import Budget, Estimate, best_first, estimate

__all__ = ["analyse", "decision_count", "BUDGETS", "judge_position"]

# Samples per decision kind (docs/analysis.md, "Speed").
BUDGETS: dict[str, Budget] = {
    "upcard": Budget((8, 24, 64)),
    "draw": Budget((8, 24, 64)),
    "discard": Budget((8, 24, 48)),
    "knock": Budget((8, 24, 48)),
    "rummy": Budget((8, 24, 40)),
}


def decision_count(record: GameRecord) -> int:
    """How many decisions ``analyse`` reports (one per move): the total for progress."""
    return len(record.moves)


def _canonical(text: str) -> str:
    """The legal-action spelling of a recorded action (a knock's shown melds dropped)."""
    a = Action.parse(text)
    if a.melds:
        a = Action(a.kind, a.card)
    return str(a)


def _kind(phase: Phase, actions: Sequence[str], played: str) -> str:
    if phase is Phase.OFFER:
        return "upcard"
    if phase is Phase.DRAW:
        return "draw"
    if phase is Phase.DISCARD:
        if any(a.startswith(("knock:", "gin:", "big_gin")) for a in actions):
            return "knock"
        return "discard"
    if phase is Phase.LAYOFF:
        return "layoff"
    if phase is Phase.PLAY:
        head = played.partition(":")[0]
        if head in ("meld", "layoff"):
            return head
        return "discard"
    return "other"


def _values(
    bot: ExpertBot,
    view: dict[str, Any],
    phase: Phase,
    actions: Sequence[str],
    played: int,
    rng: random.Random,
) -> list[Estimate]:
    if phase is Phase.LAYOFF:
        return [Estimate(v, 0.0, 1) for v in layoff_values(view, actions)]
    know = from_view(view)
    draw: Callable[[random.Random], Any]
    value: Callable[[int, Any], float]
    if know.family == "rummy":
        draw, value = rummy_valuer(know, view, actions)
        budget = BUDGETS["rummy"]
    else:
        draw, value = gin_valuer(bot, know, view, actions)
        budget = BUDGETS[_kind(phase, actions, "")]

    def sample(_k: int) -> Any:
        return draw(rng)

    return estimate(len(actions), sample, value, budget, always=(played,))


def judge_position(
    state: GameState, seat: int, played: str, *, index: int = 0, seed: int = 0
) -> tuple[str, tuple[Option, ...], float, str]:
    """(kind, options best first, loss, judgement) of ``seat`` playing ``played`` in
    ``state``, judged from ``view_for(state, seat)`` only."""
    view = view_for(state, seat)
    phase = state.phase
    actions = [str(a) for a in legal_actions(state)]
    played = _canonical(played)
    kind = _kind(phase, actions, played)
    if len(actions) <= 1:
        return kind, (Option(played, 0.0, 0.0),), 0.0, FORCED
    if played not in actions:
        raise ValueError(f"{played!r} is not a legal action here")
    rng = random.Random(f"analysis:{seed}:{index}")
    # The playouts that judge every option are those of analyser version 1 (players who
    # avoid feeding the other's hand, ``sim_danger=4``): the Expert's own default changed to
    # 0 (issue #26), and the analysis numbers change only with ``ANALYSER_VERSION``.
    bot = ExpertBot(rng=random.Random(0), score_aware=False, sim_danger=4.0)
    est = _values(bot, view, phase, actions, actions.index(played), rng)
    order = best_first(actions, est)
    options = tuple(
        Option(actions[i], round(est[i].mean, 3), round(est[i].spread, 3)) for i in order
    )
    by_action = {o.action: o for o in options}
    best = options[0]
    mine = by_action[played]
    loss = round(max(best.value - mine.value, 0.0), 3)
    judgement = JUDGEMENTS[0] if mine.action == best.action else judge(loss)
    return kind, options, loss, judgement


def analyse(
    record: GameRecord,
    *,
    seed: int = 0,
    progress: Callable[[int, int], None] | None = None,
    timed_out: frozenset[int] = frozenset(),
    played_on: frozenset[int] = frozenset(),
) -> GameAnalysis:
    """Judge every decision of every seat of a finished (or unfinished) record.

    ``timed_out``: the indices of the moves the site played for a player whose time ran out
    (the game's sources): reported as ``TIMED_OUT``, not judged; ``played_on``: those the
    computer played in the seat of a person who had left the game, ``PLAYED_ON``, not
    judged. ``progress(done, total)`` is called as decisions are judged. Deterministic for
    a seed. Raises ``games.engine.RecordError`` for a record that does not replay."""
    total = decision_count(record)
    state = record.new_state()
    decisions: list[Decision] = []
    for i, move, after, _events in iter_replay(record):
        if i in timed_out or i in played_on:
            played = _canonical(move.action)
            kind = _kind(state.phase, [str(a) for a in legal_actions(state)], played)
            options: tuple[Option, ...] = (Option(played, 0.0, 0.0),)
            loss, judgement = 0.0, TIMED_OUT if i in timed_out else PLAYED_ON
        else:
            kind, options, loss, judgement = judge_position(
                state, move.seat, move.action, index=i, seed=seed
            )
        decisions.append(
            Decision(
                index=i,
                seat=move.seat,
                hand=state.hand_number,
                kind=kind,
                played=_canonical(move.action),
                best=options[0].action,
                options=options,
                loss=loss,
                judgement=judgement,
            )
        )
        state = after
        if progress is not None:
            progress(i + 1, total)
    return GameAnalysis(
        version=ANALYSER_VERSION,
        mode=record.mode,
        decisions=tuple(decisions),
        summaries=summarise(decisions, record.players),
    )
