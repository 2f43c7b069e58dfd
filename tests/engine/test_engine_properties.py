"""Hypothesis properties over seeded random play: conservation, legality, replay, formulas."""

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from games.engine import (
    GameRecord,
    GameState,
    HandOutcome,
    IllegalActionError,
    apply,
    get_mode,
    is_legal,
    legal_actions,
    new_game,
    replay,
)
from games.engine.selfplay import _fingerprint, _illegal_candidates, check_state, random_policy

MODES = st.sampled_from(
    [
        ("classic", 2),
        ("straight", 2),
        ("oklahoma", 2),
        ("hollywood", 2),
        ("rummy", 2),
        ("rummy", 3),
        ("rummy", 4),
    ]
)


def _walk(mode, n, seed, steps):
    """Play up to ``steps`` random actions; yields states."""
    rng = random.Random(seed)
    s = new_game(mode, seed, n)
    yield s
    for _ in range(steps):
        if s.is_over:
            return
        s = apply(s, random_policy(s, rng), seat=s.to_act).state
        yield s


@settings(max_examples=25, deadline=None)
@given(MODES, st.integers(0, 10**6))
def test_cards_conserved_and_legal_actions_never_empty(mn, seed):
    mode, n = mn
    for s in _walk(mode, n, seed, 300):
        check_state(s)  # 52 distinct cards; legal actions exist until the game is over


@settings(max_examples=20, deadline=None)
@given(MODES, st.integers(0, 10**6))
def test_every_legal_action_applies_and_illegal_ones_raise_and_change_nothing(mn, seed):
    mode, n = mn
    rng = random.Random(seed)
    for i, s in enumerate(_walk(mode, n, seed, 150)):
        if s.is_over or i % 5:
            continue
        acts = legal_actions(s)
        fp = _fingerprint(s)
        for a in acts:
            assert is_legal(s, a, seat=s.to_act)
            check_state(apply(s, a, seat=s.to_act).state)
        texts = {str(a) for a in acts}
        for t in rng.sample(_illegal_candidates(), 30):
            if t in texts:
                continue
            try:
                apply(s, t, seat=s.to_act)
            except IllegalActionError:
                pass
            else:
                raise AssertionError(f"{t} applied but is not legal")
            assert not is_legal(s, t)
        other = (s.to_act + 1) % n
        try:
            apply(s, acts[0], seat=other)
        except IllegalActionError:
            pass
        else:
            raise AssertionError("out of turn action applied")
        assert _fingerprint(s) == fp


@settings(max_examples=10, deadline=None)
@given(MODES, st.integers(0, 10**6))
def test_replay_is_deterministic_and_state_dict_round_trips(mn, seed):
    mode, n = mn
    *_, s = _walk(mode, n, seed, 400)
    rec = GameRecord.from_state(s)
    assert replay(rec) == s
    assert replay(GameRecord.from_text(rec.to_text())) == s
    assert GameState.from_dict(s.to_dict()) == s


def _check_formulas(s):
    mode = s.mode
    for h in s.hand_results:
        if h.outcome is HandOutcome.KNOCK:
            assert h.base_points == h.defender_deadwood - h.knocker_deadwood > 0
        elif h.outcome is HandOutcome.UNDERCUT:
            assert h.defender_deadwood <= h.knocker_deadwood
            assert h.base_points == mode.undercut_bonus + h.knocker_deadwood - h.defender_deadwood
        elif h.outcome is HandOutcome.GIN:
            assert h.knocker_deadwood == 0 and h.layoffs == ()
            assert h.base_points == mode.gin_bonus + h.defender_deadwood
        elif h.outcome is HandOutcome.BIG_GIN:
            assert h.base_points == mode.big_gin_bonus + h.defender_deadwood
        elif h.outcome is HandOutcome.OUT:
            from games.engine import Card

            losers = sum(
                Card(c).value for i, r in enumerate(h.remaining) if i != h.winner for c in r
            )
            assert h.base_points == losers
            assert h.multiplier == (mode.going_rummy_multiplier if h.going_rummy else 1)
        else:
            assert h.points == 0 and h.winner is None
        assert h.points == h.base_points * h.multiplier
        if mode.family == "gin" and h.outcome is not HandOutcome.DRAWN:
            assert h.knocker_deadwood <= (h.knock_limit or 0)
    if s.result and mode.family == "gin":
        for col in s.result.columns:
            pts = [0] * s.num_players
            for h in s.hand_results:
                if col.column in h.columns:
                    pts[h.winner] += h.points
            assert list(col.hand_points) == pts
            w = col.winner
            assert pts[w] >= mode.target
            assert col.game_bonus[w] == mode.game_bonus and sum(col.game_bonus) == mode.game_bonus
            for i in range(s.num_players):
                assert col.line_bonus[i] == mode.line_bonus * col.hands_won[i]
                mult = mode.shutout_multiplier if col.shutout and i == w else 1
                assert col.totals[i] == pts[i] * mult + col.game_bonus[i] + col.line_bonus[i]
        assert list(s.result.totals) == [
            sum(c.totals[i] for c in s.result.columns) for i in range(2)
        ]
    if s.result and mode.family == "rummy":
        assert max(s.result.totals) >= mode.target_for(s.num_players)


@settings(max_examples=12, deadline=None)
@given(MODES, st.integers(0, 10**6))
def test_scores_follow_the_formulas(mn, seed):
    from games.engine.selfplay import play_game

    mode, n = mn
    s = play_game(mode, seed, n, check=False)
    assert s.is_over
    _check_formulas(s)


def test_modes_registry():
    assert set(
        get_mode(m).name for m in ("classic", "straight", "oklahoma", "hollywood", "rummy")
    ) == {"classic", "straight", "oklahoma", "hollywood", "rummy"}
