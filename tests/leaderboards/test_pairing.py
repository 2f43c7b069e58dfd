"""Property tests of the pure bracket and pairing module, for 2..129 entrants."""
from __future__ import annotations

import math
import random
from collections import Counter

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from leaderboards.tournaments import pairing as P

ENTRANTS = st.integers(min_value=2, max_value=129)
FAST = settings(max_examples=40, deadline=None)


def _ids(n: int) -> list[int]:
    return [100 + i for i in range(n)]  # ids distinct from seed numbers


def _play_bracket(specs, seeds, rng):
    """Play every ready match with a random winner until the event is decided; return the
    resolved bracket and the keys in the order they were played."""
    results: dict[str, int] = {}
    played = []
    while True:
        resolved = P.resolve(specs, seeds, results)
        ready = [m for m in resolved.values() if m.state == "ready"]
        if not ready:
            return resolved, played
        # A round's players: each player is in at most one ready match at a time.
        busy = Counter(p for m in ready for p in (m.a, m.b))
        assert max(busy.values()) == 1
        for m in ready:
            results[m.spec.key] = rng.choice((m.a, m.b))
            played.append(m.spec.key)


@FAST
@given(n=ENTRANTS, seed=st.integers(0, 2**32))
def test_single_elimination(n, seed):
    seeds = _ids(n)
    specs = P.single_elimination(n)
    rounds = max(s.round for s in specs)
    assert rounds == math.ceil(math.log2(n)) == P.elimination_rounds(n)
    resolved, played = _play_bracket(specs, seeds, random.Random(seed))
    # Every entrant once in each round it reaches, never twice in a round.
    for r in range(1, rounds + 1):
        people = [p for m in resolved.values() if m.spec.round == r for p in (m.a, m.b)
                  if p is not None]
        assert len(people) == len(set(people))
    first = [resolved[s.key] for s in specs if s.round == 1]
    assert sorted(p for m in first for p in (m.a, m.b) if p is not None) == seeds
    # Byes only where needed: bracket size minus entrants, all in round one, to the top seeds.
    byes = [m for m in resolved.values() if m.state == "bye"]
    assert len(byes) == P.bracket_size(n) - n
    assert all(m.spec.round == 1 for m in byes)
    assert sorted(m.winner for m in byes) == seeds[: len(byes)]
    assert not [m for m in resolved.values() if m.state == "empty"]
    assert len(played) == n - 1
    winner = P.champion(specs, resolved)
    places = P.elimination_places(specs, resolved)
    assert places[winner] == 1
    assert sorted(places) == sorted(seeds)
    assert sorted(places.values())[:2] == [1, 2]
    for m in resolved.values():
        if m.state == "done":  # losers of round r share place size / 2^r + 1
            assert places[m.loser] == P.bracket_size(n) // 2 ** m.spec.round + 1


def test_places_wait_for_the_whole_stage():
    specs = P.single_elimination(4)
    r = P.resolve(specs, [1, 2, 3, 4], {"W1-0": 1})
    assert P.elimination_places(specs, r) == {}
    r = P.resolve(specs, [1, 2, 3, 4], {"W1-0": 1, "W1-1": 2})
    assert P.elimination_places(specs, r) == {4: 3, 3: 3}


@FAST
@given(n=ENTRANTS, seed=st.integers(0, 2**32))
def test_double_elimination(n, seed):
    seeds = _ids(n)
    specs = P.double_elimination(n)
    assert len({s.key for s in specs}) == len(specs)
    resolved, played = _play_bracket(specs, seeds, random.Random(seed))
    losses = Counter(resolved[k].loser for k in played)
    winner = P.champion(specs, resolved)
    assert winner is not None
    assert losses[winner] <= 1
    assert all(losses[p] == 2 for p in seeds if p != winner)
    # Every match played once between two players; 2n-2 matches, 2n-1 with the reset.
    assert len(played) in (2 * n - 2, 2 * n - 1)
    byes = [m for m in resolved.values() if m.state == "bye" and m.spec.bracket == "W"]
    assert len(byes) == P.bracket_size(n) - n
    places = P.elimination_places(specs, resolved)
    assert sorted(places) == sorted(seeds)
    assert places[winner] == 1 and sorted(places.values())[1] == 2


def test_results_out_of_the_bracket_are_refused():
    specs = P.single_elimination(4)
    seeds = [1, 2, 3, 4]
    with pytest.raises(P.PairingError):
        P.resolve(specs, seeds, {"W1-0": 2})  # 1 meets 4
    with pytest.raises(P.PairingError):
        P.resolve(specs, seeds, {"W2-0": 1})  # not ready
    with pytest.raises(P.PairingError):
        P.resolve(specs, seeds, {"W9-0": 1})
    with pytest.raises(P.PairingError):
        P.resolve(P.single_elimination(3), [1, 2, 3], {"W1-0": 1})  # a bye is not played


def test_seeding_puts_top_seeds_apart():
    assert P.seed_positions(8) == [0, 7, 3, 4, 1, 6, 2, 5]
    assert P.seed_order({5: 1500, 6: 1700, 7: 1500}) == [6, 5, 7]


def test_double_elimination_reset_only_after_an_upset():
    specs = P.double_elimination(2)
    r = P.resolve(specs, [1, 2], {"W1-0": 1, "GF1": 1})
    assert r["GF2"].state == "skipped" and P.champion(specs, r) == 1
    r = P.resolve(specs, [1, 2], {"W1-0": 1, "GF1": 2})
    assert r["GF2"].state == "ready"
    r = P.resolve(specs, [1, 2], {"W1-0": 1, "GF1": 2, "GF2": 2})
    assert P.champion(specs, r) == 2
    assert P.elimination_places(specs, r) == {2: 1, 1: 2}


def _min_repeats(players: list[P.SwissPlayer], byes: bool = True) -> int:
    """The fewest repeated pairings any pairing of this round must have (exact); with
    ``byes`` false, the fewest rematches of two players (a second bye counts for nothing)."""
    g = nx.Graph()
    ids = [p.id for p in players]
    if len(ids) % 2:
        ids.append(P.BYE)
    by_id = {p.id: p for p in players}
    for i, a in enumerate(ids):
        for b in ids[i + 1:]:
            if a == P.BYE or b == P.BYE:
                rep = byes and by_id[b if a == P.BYE else a].had_bye
            else:
                rep = b in by_id[a].opponents
            g.add_edge(a, b, weight=0 if rep else 1)
    m = nx.max_weight_matching(g, maxcardinality=True)
    return sum(1 for a, b in m if g[a][b]["weight"] == 0)


@settings(max_examples=30, deadline=None)
@given(n=ENTRANTS, rounds=st.integers(1, 6), seed=st.integers(0, 2**32))
def test_swiss_rounds(n, rounds, seed):
    rng = random.Random(seed)
    ids = _ids(n)
    ratings = {p: rng.randint(1000, 2000) for p in ids}
    score = dict.fromkeys(ids, 0.0)
    opponents: dict[int, set] = {p: set() for p in ids}
    byes: set[int] = set()
    results = []
    for _ in range(min(rounds, n - 1)):
        players = [P.SwissPlayer(p, score[p], ratings[p], frozenset(opponents[p]), p in byes)
                   for p in ids]
        pairs, bye = P.swiss_pairings(players)
        seen = [p for pair in pairs for p in pair] + ([bye] if bye is not None else [])
        assert sorted(seen) == ids  # each entrant exactly once
        assert (bye is not None) == (n % 2 == 1)  # a bye only when odd
        rematches = sum(1 for a, b in pairs if b in opponents[a])
        repeats = rematches + (bye in byes)
        if repeats:
            assert repeats == _min_repeats(players)
            assert rematches == _min_repeats(players, byes=False)  # a Swiss ends on one
        for a, b in pairs:
            assert a != b
            w = rng.choice((a, b))
            score[w] += 1
            opponents[a].add(b)
            opponents[b].add(a)
            results.append(P.Result(a, b, w))
        if bye is not None:
            score[bye] += 1
            byes.add(bye)
            results.append(P.Result(bye, None, bye))
    standings = P.swiss_standings(ids, results)
    assert len(standings) == n
    assert all(s.score == score[s.player] for s in standings)
    assert [s.place for s in standings] == sorted(s.place for s in standings)


def test_swiss_keeps_score_groups_and_avoids_repeats():
    # Four on 1 point, four on 0: the top four play each other, not the bottom ones.
    players = [P.SwissPlayer(i, 1.0 if i < 4 else 0.0, 2000 - i) for i in range(8)]
    pairs, bye = P.swiss_pairings(players)
    assert bye is None
    assert all((a < 4) == (b < 4) for a, b in pairs)
    # 0 has met 1, 2 and 3: it must drop to the lower group rather than repeat.
    players[0] = P.SwissPlayer(0, 1.0, 2000, frozenset({1, 2, 3}))
    pairs, _ = P.swiss_pairings(players)
    partner = dict(pairs + [(b, a) for a, b in pairs])
    assert partner[0] >= 4


def test_swiss_gives_a_second_bye_rather_than_a_rematch():
    """1 has met 2 and 3 and had the bye: 2 v 3 with 1's second bye, not a rematch of 1
    (which the old weights chose: both had one repeat, and the bye to the leader cost more
    in the standings)."""
    players = [P.SwissPlayer(1, 2.0, 2000, frozenset({2, 3}), had_bye=True),
               P.SwissPlayer(2, 1.0, 1900, frozenset({1})),
               P.SwissPlayer(3, 0.0, 1800, frozenset({1}))]
    assert P.swiss_pairings(players) == ([(2, 3)], 1)


def test_swiss_bye_goes_to_the_lowest_without_one():
    players = [P.SwissPlayer(i, 0.0, 2000 - i, had_bye=(i == 4)) for i in range(5)]
    _, bye = P.swiss_pairings(players)
    assert bye == 3


def test_swiss_standings_tiebreaks():
    # A beat B, B beat C, C beat A; D beat C. A: beat B (1). Scores: A1 B1 C1 D1.
    results = [P.Result(1, 2, 1), P.Result(2, 3, 2), P.Result(3, 1, 3), P.Result(4, 3, 4)]
    rows = {s.player: s for s in P.swiss_standings([1, 2, 3, 4], results)}
    assert rows[1].score == rows[2].score == rows[3].score == rows[4].score == 1
    assert rows[3].tiebreak1 == 3  # Buchholz: opponents 2, 1, 4 with 1 each
    assert rows[4].tiebreak1 == 1
    assert rows[1].tiebreak2 == 1  # Sonneborn-Berger: beat 2 (1 point)
    assert rows[3].place == 1 and rows[4].place == 4


@FAST
@given(n=st.integers(2, 40))
def test_round_robin(n):
    ids = _ids(n)
    rounds = P.round_robin(ids)
    assert len(rounds) == (n if n % 2 else n - 1)
    met = Counter()
    for pairs in rounds:
        seen = [p for pair in pairs for p in pair if p is not None]
        assert len(seen) == len(set(seen))
        assert len(seen) == n  # everyone plays or has the bye
        assert sum(1 for _, b in pairs if b is None) == n % 2
        for a, b in pairs:
            if b is not None:
                met[frozenset((a, b))] += 1
    assert len(met) == n * (n - 1) // 2 and set(met.values()) == {1}


@FAST
@given(n=ENTRANTS, seed=st.integers(0, 2**32))
def test_arena_waves(n, seed):
    rng = random.Random(seed)
    ids = _ids(n)
    last: dict[int, int | None] = dict.fromkeys(ids)
    points = dict.fromkeys(ids, 0)
    for _ in range(4):
        free = [p for p in ids if rng.random() < 0.8]
        players = [P.ArenaPlayer(p, points[p], 1500, last[p]) for p in free]
        pairs = P.arena_pairings(players)
        seen = [p for pair in pairs for p in pair]
        assert len(seen) == len(set(seen)) and set(seen) <= set(free)
        for a, b in pairs:
            assert a != b
            assert last[a] != b and last[b] != a  # never twice in a row
        if len(free) >= 6:
            assert len(free) - len(seen) <= 1
        for a, b in pairs:
            w = rng.choice((a, b))
            points[w] += 2
            last[a], last[b] = b, a


def test_arena_two_players_who_just_met_wait():
    players = [P.ArenaPlayer(1, 0, 1500, 2), P.ArenaPlayer(2, 0, 1500, 1)]
    assert P.arena_pairings(players) == []
    players.append(P.ArenaPlayer(3, 0, 1500, None))
    assert len(P.arena_pairings(players)) == 1
    assert P.arena_pairings([P.ArenaPlayer(1), P.ArenaPlayer(1)]) == []


def test_arena_players_who_just_met_meet_again_when_nobody_else_can_come_free():
    two = [P.ArenaPlayer(1, 0, 1500, 2), P.ArenaPlayer(2, 0, 1500, 1)]
    assert P.arena_pairings(two, rematch=True) == [(1, 2)]
    # a third free player is still preferred to the rematch; the odd one out waits
    three = [*two, P.ArenaPlayer(3, 0, 1500, None)]
    pairs = P.arena_pairings(three, rematch=True)
    assert len(pairs) == 1 and 3 in pairs[0]
    # four whose last opponents pair them up: no rematch where another pairing exists
    four = [*two, P.ArenaPlayer(3, 0, 1500, 4), P.ArenaPlayer(4, 0, 1500, 3)]
    pairs = {frozenset(p) for p in P.arena_pairings(four, rematch=True)}
    assert len(pairs) == 2 and not pairs & {frozenset((1, 2)), frozenset((3, 4))}


def test_arena_points_and_performance():
    assert P.arena_points(["win", "win", "win", "loss", "win"]) == (2 + 2 + 4 + 0 + 2, False)
    assert P.arena_points(["win", "win"]) == (4, True)
    rows = P.arena_standings([1, 2], {1: [("win", 1600), ("loss", 1400)], 2: []})
    assert rows[0].player == 1 and rows[0].score == 2 and rows[0].tiebreak1 == 1500
    assert rows[1].tiebreak2 == 0


def test_arena_performance_is_the_exact_mean():
    """docs/tournaments.md: the mean, not the mean rounded (1746.48 was kept as 1746.0, and
    two players 0.4 apart tied on it)."""
    rows = P.arena_standings([1, 2], {
        1: [("win", 1600), ("loss", 1401), ("draw", 1500)],  # (2100 + 901 + 1500) / 3
        2: [("win", 1600), ("loss", 1400), ("draw", 1500)],  # 1500
    })
    assert rows[0].player == 1 and rows[0].tiebreak1 == 4501 / 3
    assert rows[1].player == 2 and rows[1].tiebreak1 == 1500
    assert (rows[0].place, rows[1].place) == (1, 2)  # equal points, the exact mean decides
    assert P.arena_standings([1], {1: [("win", 1246.48)]})[0].tiebreak1 == 1746.48


def test_a_waiting_match_shows_the_side_already_known():
    """Five entrants: seed 1's bye puts him in round two while 4 v 5 is played; his box
    shows him, not "… / …"."""
    seeds = _ids(5)
    resolved = P.resolve(P.single_elimination(5), seeds, {})
    waiting = [m for m in resolved.values() if m.state == "waiting" and seeds[0] in (m.a, m.b)]
    assert len(waiting) == 1 and None in (waiting[0].a, waiting[0].b)


@pytest.mark.parametrize("build", [P.single_elimination, P.double_elimination])
@pytest.mark.parametrize("n", [3, 5, 6, 9, 12])
def test_every_waiting_side_whose_source_is_decided_is_filled(build, n):
    specs, seeds, rng = build(n), _ids(n), random.Random(n)
    results: dict[str, int] = {}
    while True:
        resolved = P.resolve(specs, seeds, results)
        for m in resolved.values():
            if m.state != "waiting":
                continue
            for src, got in ((m.spec.a, m.a), (m.spec.b, m.b)):
                if src.kind == "seed":
                    want = seeds[int(src.ref)] if int(src.ref) < n else None
                elif resolved[str(src.ref)].decided:
                    r = resolved[str(src.ref)]
                    want = r.winner if src.kind == "winner" else r.loser
                else:
                    want = None
                assert got == want
        ready = [m for m in resolved.values() if m.state == "ready"]
        if not ready:
            break
        m = ready[0]
        results[m.spec.key] = rng.choice((m.a, m.b))
