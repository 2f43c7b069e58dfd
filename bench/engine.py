"""Benchmark of the engine's meld solver (and RLCard's, side by side, when it is importable).

Run from the repository root:

    python bench/engine.py [--n 20000] [--seed 1]

Prints median microseconds per call for:
* best_melds on random 10-card hands,
* best_melds on meld-rich 10-card hands (each knocker's ten cards at the moment of a knock
  in seeded self-play),
* the best-discard scan of random 11-card hands (best_discards, and the deadwood-only scan),
* full random classic hands per second (self-play without checks).

RLCard is no dependency of the site: install it only into the benchmark's own environment,
e.g. ``python -m venv /tmp/rlvenv && /tmp/rlvenv/bin/pip install rlcard`` and run this file
with that interpreter plus ``PYTHONPATH=.``. Without it the RLCard columns are skipped.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games.engine import apply, best_discards, best_melds, deadwood_of_mask, new_game  # noqa: E402
from games.engine.cards import full_deck, mask_of  # noqa: E402
from games.engine.selfplay import play_game, random_policy  # noqa: E402


def _median_us(fn, items, repeat: int = 5) -> float:
    """Median over ``repeat`` batches of the per-call time, in microseconds."""
    per = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for x in items:
            fn(x)
        per.append((time.perf_counter() - t0) / len(items) * 1e6)
    return statistics.median(per)


def meld_rich_hands(count: int, seed: int) -> list[list[str]]:
    """The knocker's ten cards whenever somebody knocks or goes gin in seeded self-play."""
    out: list[list[str]] = []
    g = 0
    while len(out) < count:
        rng = random.Random(seed * 7919 + g)
        s = new_game("classic", seed + g)
        g += 1
        while not s.is_over and len(out) < count:
            a = random_policy(s, rng)
            if a.kind in ("knock", "gin"):
                out.append([c.text for c in s.hands[s.turn] if c != a.card])
            s = apply(s, a, seat=s.to_act).state
    return out


def rlcard_solver():
    try:
        from rlcard.games.gin_rummy.utils import melding
        from rlcard.games.gin_rummy.utils.utils import card_from_text, get_card, get_card_id
    except Exception:  # noqa: BLE001 - optional dependency
        return None

    def conv(texts):
        return [get_card(get_card_id(card_from_text(t))) for t in texts]

    def best10(cards):
        melding.get_best_meld_clusters(hand=cards)

    def scan11(cards):
        # what RLCard's own agents do for a discard: best clusters of each 10-card remainder
        for i in range(len(cards)):
            melding.get_best_meld_clusters(hand=cards[:i] + cards[i + 1 :])

    return conv, best10, scan11


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--games", type=int, default=30)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    deck = [c.text for c in full_deck()]
    rand10 = [rng.sample(deck, 10) for _ in range(args.n)]
    rich10 = meld_rich_hands(min(args.n, 5000), args.seed)
    rand11 = [rng.sample(deck, 11) for _ in range(max(args.n // 4, 1000))]
    rows = []

    rows.append(("best_melds random 10 (texts)", _median_us(best_melds, rand10), None))
    m10 = [mask_of(h) for h in rand10]
    rows.append(("best_melds random 10 (mask)", _median_us(best_melds, m10), None))
    rows.append(("best_melds meld-rich 10 (texts)", _median_us(best_melds, rich10), None))
    rows.append(
        (
            "best_melds random 10 + to_dict",
            _median_us(lambda h: best_melds(h).to_dict(), rand10),
            None,
        )
    )
    rows.append(("best_discards random 11 (texts)", _median_us(best_discards, rand11), None))

    def scan(m):
        x = m
        best = 999
        while x:
            b = x & -x
            x ^= b
            d = deadwood_of_mask(m ^ b)
            if d < best:
                best = d
        return best

    rows.append(
        (
            "deadwood-only discard scan 11 (mask)",
            _median_us(scan, [mask_of(h) for h in rand11]),
            None,
        )
    )

    rl = rlcard_solver()
    if rl is not None:
        conv, best10, scan11 = rl
        r10 = [conv(h) for h in rand10[:5000]]
        rr = [conv(h) for h in rich10[:3000]]
        r11 = [conv(h) for h in rand11[:500]]
        rows[0] = rows[0][:2] + (_median_us(best10, r10, 3),)
        rows[2] = rows[2][:2] + (_median_us(best10, rr, 3),)
        rows[4] = rows[4][:2] + (_median_us(scan11, r11, 3),)

    print(f"python {sys.version.split()[0]}, {args.n} random hands, {len(rich10)} meld-rich hands")
    print(f"{'case':40s} {'engine us':>10s} {'rlcard us':>10s} {'speedup':>8s}")
    for name, ours, theirs in rows:
        t = f"{theirs:10.2f}" if theirs else f"{'-':>10s}"
        sp = f"{theirs / ours:7.1f}x" if theirs else f"{'':>8s}"
        print(f"{name:40s} {ours:10.2f} {t} {sp}")

    t0 = time.perf_counter()
    hands = 0
    for g in range(args.games):
        s = play_game("classic", args.seed + g, check=False)
        hands += len(s.hand_results)
    dt = time.perf_counter() - t0
    print(
        f"full random classic hands per second: {hands / dt:.0f}"
        f" ({hands} hands, {args.games} games)"
    )


if __name__ == "__main__":
    main()
