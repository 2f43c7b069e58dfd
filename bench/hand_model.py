"""Train and check ``games/bots/holding.py``: how likely a sampled opponent hand is.

    .venv/bin/python bench/hand_model.py --mode classic --hands 1500 --seed 2680 --samples 8 \
        [--write]

Hard plays Hard in single hands of ``--mode`` (classic, straight, oklahoma or hollywood: each
mode has its own weights, since Hard keeps and knocks differently in each). At every decision
of either seat (after the opponent's first throw), the recorder takes the other seat's real
hand and ``--samples`` hands from the Expert's sampler (``gin_sampler.sample_consistent``) on
the seat's view, and the features of each (``holding.HandModel.features``). A conditional logit
(which of the group is the real hand?) is fitted by Newton's method on the first 80% of the
hands and checked on the rest; its score is then the log-ratio of how likely the real opponent
holds a hand to how likely the sampler deals it, which ``gin_sampler.sample_tilted`` uses to
choose among samples.

Printed: the test groups' log-likelihood per group against the uniform choice (``log(k+1)``),
the weights, and on the test positions how often the sampled hands and the real ones could
knock or have gone gin, with the samples as dealt and as tilted (``--tilt`` draws per kept
sample).

Needs numpy (``pip install numpy``: the bots never import it). ``--write`` stores the weights
in ``games/bots/holding_weights.py`` under the mode's name, leaving the other modes' weights.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np  # noqa: E402
from bots_hands import play_hand  # noqa: E402

from games.bots import get_bot, holding  # noqa: E402
from games.bots.cardmath import dw, mask_from  # noqa: E402
from games.bots.gin_sampler import sample_consistent  # noqa: E402
from games.bots.knowledge import from_view  # noqa: E402

WEIGHTS = os.path.join(os.path.dirname(holding.__file__), "holding_weights.py")
TRAIN = "--mode {mode} --hands {hands} --seed {seed} --samples {samples} --l2 {l2}"
ZERO = tuple([0.0] * len(holding.FEATURES))


class _Recorder:
    """A Hard bot that, before each decision, records a group: the features of the other
    seat's real hand (first row) and of the sampler's hands, and their deadwood."""

    def __init__(self, bot, seat: int, samples: int, rng: random.Random, groups: list) -> None:
        self.bot, self.seat, self.samples, self.rng = bot, seat, samples, rng
        self.groups = groups
        self.state = None

    def see_state(self, state) -> None:
        self.state = state

    def choose(self, view, legal):
        know = from_view(view)
        if know.opponent().discarded:
            model = holding.HandModel(know, ZERO)
            hands = [mask_from(self.state.hands[1 - self.seat])]
            hands += [sample_consistent(know, self.rng)[0] for _ in range(self.samples)]
            self.groups.append(
                ([model.features(h) for h in hands], [dw(h) for h in hands], know.knock_limit)
            )
        return self.bot.choose(view, legal)


def collect(mode: str, hands: int, seed: int, samples: int) -> list[list]:
    """Groups per hand played."""
    rng = random.Random(seed)
    out = []
    for h in range(hands):
        groups: list = []
        bots = [
            _Recorder(get_bot("hard", seed=f"{seed}:{h}:{s}"), s, samples, rng, groups)
            for s in (0, 1)
        ]
        play_hand(mode, bots, seed * 1000 + h)
        out.append(groups)
    return out


def _scores(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    return np.einsum("gkf,f->gk", x, w)


def loglik(x: np.ndarray, w: np.ndarray) -> float:
    """Mean log-probability of the real hand (row 0) within its group."""
    s = _scores(x, w)
    s = s - s.max(axis=1, keepdims=True)
    return float(np.mean(s[:, 0] - np.log(np.exp(s).sum(axis=1))))


def fit(x: np.ndarray, l2: float) -> np.ndarray:
    """Conditional logit (row 0 of each group is the chosen one), Newton's method, ridge."""
    nf = x.shape[2]
    w = np.zeros(nf)
    for _ in range(30):
        s = _scores(x, w)
        s -= s.max(axis=1, keepdims=True)
        p = np.exp(s)
        p /= p.sum(axis=1, keepdims=True)
        mean = np.einsum("gk,gkf->gf", p, x)
        grad = (x[:, 0, :] - mean).sum(axis=0) - l2 * w
        xc = x - mean[:, None, :]
        hess = np.einsum("gk,gkf,gkh->fh", p, xc, xc) + l2 * np.eye(nf)
        step = np.linalg.solve(hess, grad)
        w += step
        if np.max(np.abs(step)) < 1e-6:
            break
    return w


def tilted_shares(groups: list, x: np.ndarray, w: np.ndarray, tilt: int, rng) -> dict:
    """Share of gin and knockable hands among the real ones, the samples, and the samples
    chosen ``tilt`` at a time by the weights."""
    out = {"real": [0, 0], "sampled": [0, 0], "tilted": [0, 0]}
    s = _scores(x, w)
    n = 0
    for g, (_f, dws, limit) in enumerate(groups):
        def facts(d, lim=limit):
            return d == 0, bool(lim) and d <= lim
        gin, knock = facts(dws[0])
        out["real"][0] += gin
        out["real"][1] += knock
        k = len(dws) - 1
        for i in range(1, k + 1):
            gin, knock = facts(dws[i])
            out["sampled"][0] += gin / k
            out["sampled"][1] += knock / k
        for _ in range(k):
            idx = rng.sample(range(1, k + 1), min(tilt, k))
            z = s[g, idx] - s[g, idx].max()
            p = np.exp(z) / np.exp(z).sum()
            j = idx[rng.choices(range(len(idx)), weights=p)[0]]
            gin, knock = facts(dws[j])
            out["tilted"][0] += gin / k
            out["tilted"][1] += knock / k
        n += 1
    return {k: (v[0] / n, v[1] / n) for k, v in out.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mode", default="classic", choices=holding.MODES)
    ap.add_argument("--hands", type=int, default=1500)
    ap.add_argument("--seed", type=int, default=2680)
    ap.add_argument("--samples", type=int, default=8)
    ap.add_argument("--l2", type=float, default=1.0)
    ap.add_argument("--tilt", type=int, default=4)
    ap.add_argument("--write", action="store_true")
    args = ap.parse_args()
    t0 = time.perf_counter()
    data = collect(args.mode, args.hands, args.seed, args.samples)
    cut = int(len(data) * 0.8)
    train = [g for hand in data[:cut] for g in hand]
    test = [g for hand in data[cut:] for g in hand]
    x = np.array([g[0] for g in train], dtype=float)
    xt = np.array([g[0] for g in test], dtype=float)
    w = fit(x, args.l2)
    k = args.samples + 1
    print(f"{args.hands} {args.mode} hands, Hard vs Hard, seed {args.seed}: {len(train)} training "
          f"and {len(test)} test positions, {k} hands each, {time.perf_counter() - t0:.0f} s")
    print(f"test log-likelihood of the real hand per position: uniform {-np.log(k):.4f}, "
          f"model {loglik(xt, w):.4f} (training {loglik(x, w):.4f})")
    if args.mode != "classic":
        wc = np.array(holding.load_weights("classic"))
        print(f"  Classic's weights on these test positions: {loglik(xt, wc):.4f}")
    for name, v in zip(holding.FEATURES, w, strict=True):
        print(f"  {name:14s} {v:+.3f}")
    shares = tilted_shares(test, xt, w, args.tilt, random.Random(args.seed))
    print(f"test positions, share of hands that are gin / could knock (tilt {args.tilt}):")
    for key, (gin, knock) in shares.items():
        print(f"  {key:8s} {gin:6.1%} {knock:6.1%}")
    if args.write:
        write_weights(args.mode, w, TRAIN.format(**vars(args)))
        print(f"wrote the {args.mode} weights to {WEIGHTS}")


def write_weights(mode: str, w: np.ndarray, command: str) -> None:
    """Store ``w`` as ``mode``'s weights in ``holding_weights.py``, keeping the other modes'."""
    from games.bots import holding_weights

    modes = {m: dict(ws) for m, ws in holding_weights.WEIGHTS.items()}
    commands = dict(holding_weights.TRAINED_BY)
    modes[mode] = {n: round(float(v), 4) for n, v in zip(holding.FEATURES, w, strict=True)}
    commands[mode] = command
    lines = [
        '"""The weights of ``holding.py``, one set per mode (``holding.FEATURES`` order), written',
        "by ``.venv/bin/python bench/hand_model.py ARGS --write`` with each mode's ``ARGS`` in",
        '``TRAINED_BY`` (do not edit by hand)."""',
        "",
        "TRAINED_BY = {",
        *(f'    "{m}": "{c}",' for m, c in sorted(commands.items())),
        "}",
        "",
        "WEIGHTS = {",
    ]
    for m in holding.MODES:
        if m not in modes:
            continue
        lines.append(f'    "{m}": {{')
        lines += [f'        "{n}": {v:.4f},' for n, v in modes[m].items()]
        lines.append("    },")
    lines.append("}")
    with open(WEIGHTS, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
