"""Compact state dicts: what a server stores after every move (no move list, only the current
hand's history) plays on exactly like the full state."""
import json
import random

import pytest

from games.engine import EngineError, GameState, apply, legal_actions, new_game, view_for
from games.engine.seat_views import spectator_view

CASES = [("classic", 2), ("straight", 2), ("oklahoma", 2), ("hollywood", 2), ("rummy", 2),
         ("rummy", 3), ("rummy", 4)]


@pytest.mark.parametrize(("mode", "players"), CASES)
def test_a_compact_round_trip_at_every_step_plays_like_the_full_state(mode, players):
    rng = random.Random(f"{mode}-{players}")
    full = new_game(mode, 11, players)
    stored = full.to_dict(compact=True)
    steps = 0
    hands_seen = {full.hand_number}
    while not full.is_over and steps < 600:
        # A server: load the stored dict, apply the move, store compact again.
        loaded = GameState.from_dict(json.loads(json.dumps(stored)))
        assert loaded.is_compact
        for seat in range(players):
            assert view_for(loaded, seat) == view_for(full, seat)
        assert spectator_view(loaded) == spectator_view(full)
        assert [str(a) for a in legal_actions(loaded)] == [str(a) for a in legal_actions(full)]
        action = str(rng.choice(legal_actions(full)))
        seat = full.to_act
        full, full_events = apply(full, action, seat)
        loaded, loaded_events = apply(loaded, action, seat)
        assert [e.to_dict() for e in loaded_events] == [e.to_dict() for e in full_events]
        stored = loaded.to_dict(compact=True)
        assert stored == full.to_dict(compact=True)
        hands_seen.add(full.hand_number)
        steps += 1
    assert len(hands_seen) > 1  # the compact history was cut at a new hand at least once
    assert loaded.scores == full.scores


def test_compact_leaves_out_the_moves_and_earlier_hands():
    rng = random.Random(5)
    state = new_game("classic", 3, 2)
    while state.hand_number < 3 and not state.is_over:
        state, _ = apply(state, str(rng.choice(legal_actions(state))), state.to_act)
    full, compact = state.to_dict(), state.to_dict(compact=True)
    assert compact["compact"] is True and "compact" not in full
    assert compact["moves"] == [] and len(full["moves"]) == len(state.moves) > 0
    assert compact["history"] == state.hand_history and compact["hand_history_start"] == 0
    assert len(json.dumps(compact)) < len(json.dumps(full)) / 2


def test_a_compact_state_refuses_moves_and_game_history_but_dumps_compact_again():
    state = GameState.from_dict(new_game("classic", 3, 2).to_dict(compact=True))
    with pytest.raises(EngineError, match="stored compact"):
        _ = state.moves
    with pytest.raises(EngineError, match="stored compact"):
        _ = state.history
    with pytest.raises(EngineError, match="stored compact"):
        view_for(state, 0, history="game")
    assert state.to_dict()["compact"] is True  # it cannot pretend to be full
    assert view_for(state, 0, history="hand")["history"] == state.hand_history
