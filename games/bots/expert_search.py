"""How the Expert searches: its parameters, its sample budget, how it values a hand's result
and the paired statistics that judge the candidates (its decisions: expert.py).

By default a decision is bounded by samples, not by the clock: ``max_samples`` (and
``extend_samples``) decide when a search ends, so a seeded Expert decides the same however
loaded the machine is. ``hard_limit`` (seconds of the deciding thread's CPU time, not of the
clock, so a process the machine starves for a while is not cut short) is a safety net only:
a decision that reaches it stops sampling and is counted in ``cut_short`` (the server logs
it). A ``time_budget`` (seconds) may be given to cap a decision by time instead, after at
least ``min_samples`` (benchmarks that trade strength for speed use it). A search that ends
its ``max_samples`` undecided (a candidate ahead by ``extend_from`` to ``confidence``
standard errors) samples on to ``extend_samples`` and is judged again, so the extra time
goes to the close decisions.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from typing import Any, TypedDict, TypeVar

from games.engine.modes import get_mode, gin_mode, mode_from_dict

from .cardmath import bits_of
from .equity import GameEquity, MatchEquity
from .gin import GinParams, sample_opponent
from .gin_sampler import Dealer, sample_consistent, sample_tilted
from .gin_search import Rules
from .holding import HandModel, load_weights
from .knowledge import Knowledge
from .levels import HardBot

__all__ = ["PairedStats", "SearchingBot", "SimParams", "cpu_clock"]

T = TypeVar("T")


def _cpu_clock() -> Callable[[], float]:
    """The deciding thread's CPU time (``time.thread_time``), where the platform has it: in
    the browser's WebAssembly Python (the offline game) asking for it fails, and the page's
    one thread has only the clock (what the browser gives it is the page's own time)."""
    try:
        time.thread_time()
    except (AttributeError, OSError):
        return time.perf_counter
    return time.thread_time


cpu_clock = _cpu_clock()


class SimParams(TypedDict):
    """How the playouts' imitation of Hard plays (``playout``'s keyword arguments)."""

    danger: float
    margin: float
    noise: float


class PairedStats:
    """Running paired differences of each candidate against candidate 0 (Hard's choice)."""

    def __init__(self, k: int) -> None:
        self.k = k
        self.n = 0
        self.diff = [0.0] * k
        self.diff_sq = [0.0] * k

    def add(self, vals: Sequence[float]) -> None:
        base = vals[0]
        for i in range(1, self.k):
            d = vals[i] - base
            self.diff[i] += d
            self.diff_sq[i] += d * d
        self.n += 1

    def _gains(self, min_gain: float) -> Iterator[tuple[int, float, float]]:
        """(candidate, mean paired gain, its standard error) of those gaining over ``min_gain``."""
        n = max(self.n, 1)
        for i in range(1, self.k):
            mean = self.diff[i] / n
            if mean > min_gain:
                var = max(self.diff_sq[i] / n - mean * mean, 0.0)
                yield i, mean, (var / n) ** 0.5

    def best_t(self, min_gain: float) -> float:
        """The largest t (mean / standard error) of a candidate gaining over ``min_gain``."""
        return max(
            (mean / se if se > 0 else float("inf") for _i, mean, se in self._gains(min_gain)),
            default=0.0,
        )

    def winner(self, min_gain: float, confidence: float) -> int:
        """The candidate with the best mean gain clearing ``confidence`` errors, else 0."""
        best, best_mean = 0, 0.0
        for i, mean, se in self._gains(min_gain):
            if mean > confidence * se and mean > best_mean:
                best, best_mean = i, mean
        return best


class SearchingBot(HardBot):
    """Hard plus what a sampling search needs: its parameters, samples, budget and values."""

    def __init__(
        self,
        rng: random.Random | None = None,
        params: GinParams | None = None,
        time_budget: float | None = None,
        max_samples: int = 48,
        min_samples: int = 16,
        candidates: int = 4,
        margin: float = 8.0,
        knock_samples: int = 24,
        min_gain: float = 0.25,
        confidence: float = 1.5,
        search_draws: bool = True,
        search_knocks: bool = True,
        sim_danger: float = 0.0,
        sim_margin: float = 8.0,
        sim_noise: float = 6.0,
        rummy_candidates: int = 3,
        rummy_min_gain: float = 0.5,
        rummy_confidence: float = 1.5,
        consistent: bool = True,
        score_aware: bool = True,
        knock_margin: float | None = None,
        hard_limit: float = 3.0,
        extend_samples: int = 144,
        extend_from: float = 0.75,
        tilt: int = 4,
        model_mode: str | None = None,
        match_equity: bool = True,
        **options: Any,
    ) -> None:
        if knock_margin is not None:
            params = replace(params or GinParams(), knock_margin=float(knock_margin))
        super().__init__(rng, params=params, **options)
        self.time_budget = None if time_budget is None else float(time_budget)
        self.max_samples = int(max_samples)
        self.min_samples = min(int(min_samples), self.max_samples)
        self.candidates = candidates
        self.margin = margin
        self.knock_samples = knock_samples
        self.min_gain = min_gain
        self.confidence = confidence
        self.search_draws = search_draws
        self.search_knocks = search_knocks
        # ``danger``: what a playout throw costs for a card that melds with two cards of the
        # other hand, which the playouts see whole. 0 since issue #26 (docs/bots.md): the
        # search judged Hard's discards better with playouts whose players throw by deadwood
        # alone than with clairvoyant ones that never feed each other a meld.
        self.sim: SimParams = {"danger": sim_danger, "margin": sim_margin, "noise": sim_noise}
        self.rummy_candidates = rummy_candidates
        self.rummy_min_gain = rummy_min_gain
        self.rummy_confidence = rummy_confidence
        self.sampler = sample_consistent if consistent else sample_opponent
        self.samples_used = 0  # samples of the last decision's search (0: no search)
        self.score_aware = score_aware
        # Seconds of this thread's CPU time after which a decision stops sampling even below
        # ``min_samples``: a safety net for a search far costlier than its sample budget
        # should make it (decisions take well under 0.3 s of CPU). CPU time, not the clock: a
        # loaded machine that leaves the process waiting does not cut a search short, so a
        # seeded Expert decides the same however busy the machine is. Decisions it cut short
        # are counted (the server logs them).
        self.hard_limit = float(hard_limit)
        self.cut_short = 0
        # Gin searches that end ``max_samples`` undecided (a candidate ahead of Hard's choice
        # by ``extend_from`` to ``confidence`` standard errors) go on to ``extend_samples``
        # samples, within the same time budget, and are then judged once more.
        self.extend_samples = max(int(extend_samples), self.max_samples)
        self.extend_from = float(extend_from)
        self._started_cpu = cpu_clock()
        self._value: Any = None
        # Samples drawn for each one kept, by how likely the learned model finds the real
        # opponent holds its hand (``holding.py``, ``gin_sampler.sample_tilted``); 0: every
        # sample is kept, as the sampler deals it. 4 since issue #26 (docs/bots.md).
        self.tilt = int(tilt)
        # Whose weights the model takes: None, the game's own mode's (``holding.MODES``); a
        # mode's name, that mode's in every game (screens compare them).
        self.model_mode = model_mode
        # Hollywood: value a hand by the chance of winning the match (``equity.MatchEquity``),
        # not by what it adds to the three-game total (``equity.hollywood_value``).
        self.match_equity = bool(match_equity)
        self._cached: tuple[Knowledge | None, Dealer | None, HandModel | None] = (
            None,
            None,
            None,
        )

    # ------------------------------------------------------------------ helpers
    def rules_of(self, know: Knowledge) -> Rules:
        return (
            know.knock_limit,
            know.multiplier,
            know.gin_bonus,
            know.big_gin_bonus,
            know.undercut_bonus,
            know.big_gin,
        )

    def _set_value(self, view: dict[str, Any], know: Knowledge) -> None:
        """How this decision's searches value a hand result (points, mine positive).

        Classic, Straight and Oklahoma: the chance of winning the game from the new score
        (``equity.GameEquity``, in points at the current score). Hollywood: the chance of
        winning the match, which the three games' sum decides (``equity.MatchEquity``, in
        points at the current score); with ``match_equity=False``, what the hand adds to that
        sum's difference (``equity.hollywood_value``: its points, the line bonus and, if it
        carries a column to the target, the game bonus, in every column the winner's hand
        counts in). Otherwise (or with ``score_aware=False``) the hand's points."""
        self._value = None
        if not self.score_aware or know.num_players != 2:
            return
        seat = know.seat
        scores = know.scores or [0, 0]
        if know.mode == "hollywood":
            sheet = view.get("score_sheet") or {}
            if self.match_equity and sheet.get("columns"):
                settings = view.get("settings")
                rules = mode_from_dict(settings) if settings else get_mode(know.mode)
                won = view.get("hands_won") or [0, 0]
                self._value = MatchEquity(gin_mode(rules), sheet, won, seat).value
            else:
                self._value = know.hand_value  # equity.hollywood_value
            return
        if know.mode in ("classic", "straight", "oklahoma"):
            eq = GameEquity(know.mode, know.target, scores[seat], scores[1 - seat])
            self._value = eq.value

    def _val(self, points: int) -> float:
        f = self._value
        return points if f is None else f(points)

    def draws_of(self, know: Knowledge) -> tuple[int, int]:
        """(my draws, opponent's draws) this hand, for the playouts' early-knock rule."""
        opp = know.opponent()
        return know.my_draws, opp.stock_draws + opp.took.bit_count()

    def hand_model(self, know: Knowledge) -> HandModel | None:
        """This decision's model of the opponent's hand (None: samples are not tilted).

        Only once the opponent has thrown a card: before that the sampler deals their hand
        as the deck did, and the model was fitted on later positions only."""
        return self._sampling(know)[1]

    def _sampling(self, know: Knowledge) -> tuple[Dealer, HandModel | None]:
        """This decision's ``Dealer`` and ``hand_model``, built once per ``Knowledge``."""
        seen, dealer, model = self._cached
        if seen is not know or dealer is None:
            dealer = Dealer(know)
            tilted = (
                self.tilt
                and know.num_players == 2
                and self.sampler is sample_consistent
                and know.opponent().discarded
            )
            model = HandModel(know, load_weights(self.model_mode or know.mode)) if tilted else None
            self._cached = (know, dealer, model)
        return dealer, model

    def sample_hand(self, know: Knowledge, rng: random.Random) -> tuple[int, int]:
        """One (opponent hand, stock mask): the sampler's, tilted by ``hand_model``."""
        if self.sampler is not sample_consistent:
            return self.sampler(know, rng)
        dealer, model = self._sampling(know)
        if model is None:
            return dealer.consistent(rng)
        return sample_tilted(know, rng, model, self.tilt, dealer)

    def gin_sample(self, know: Knowledge, rng: random.Random) -> tuple[int, list[int]]:
        """One (opponent hand, shuffled stock) consistent with what ``know`` holds."""
        opp, stock_mask = self.sample_hand(know, rng)
        stock = list(bits_of(stock_mask))
        rng.shuffle(stock)
        return opp, stock

    def _samples(
        self,
        know: Knowledge,
        draw: Callable[[Knowledge, random.Random], T],
        stats: PairedStats | None = None,
    ) -> Iterator[T]:
        """Yield samples (``draw(know, rng)``, e.g. ``gin_sample``: an opponent hand and a
        shuffled stock) until the time budget or the cap is reached; sets ``samples_used``.

        With ``stats``, a search still undecided at ``max_samples`` goes on to
        ``extend_samples`` (see ``__init__``)."""
        now = time.perf_counter()
        t_end = None if self.time_budget is None else now + self.time_budget
        t_stop = self._started_cpu + self.hard_limit
        rng = self.rng
        n = 0
        cap = self.max_samples
        while True:
            if n >= cap:
                undecided = (
                    stats is not None
                    and cap < self.extend_samples
                    and self.extend_from <= stats.best_t(self.min_gain) < self.confidence
                )
                if not undecided:
                    break
                cap = self.extend_samples
            if t_end is not None and n >= self.min_samples and time.perf_counter() > t_end:
                break
            if n >= 2 and cpu_clock() > t_stop:
                self.cut_short += 1
                break
            sample = draw(know, rng)
            n += 1
            self.samples_used = n
            yield sample
