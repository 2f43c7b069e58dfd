"""How a move reads to the others (``action_seen_by``): a knock's card lies face down until
the hand is scored; every other move reads the same to everyone."""

from games.engine import Phase, action_seen_by
from tests.support.engine import H, game, knock_deal, play


def _knocked():
    """Seat 1 has just knocked with KD; seat 0 may lay off, so the hand is not scored yet."""
    defender = H("4S 5S 9C 9D 9H KC QD JD 2H 8C")
    s = play(game(deals=[knock_deal(defender=defender, upcard="KH")]), "pass", "pass",
             "draw:stock", "knock:KD")
    assert s.phase is Phase.LAYOFF and [c.text for c in s.face_down] == ["KD"]
    return s


def test_the_knock_card_is_hidden_from_everyone_but_the_knocker():
    s = _knocked()
    assert action_seen_by(s, "knock:KD", 1, 1) == "knock:KD"
    assert action_seen_by(s, "knock:KD", 1, 0) == "knock"
    assert action_seen_by(s, "knock:KD", 1, None) == "knock"


def test_other_moves_and_scored_knocks_read_the_same_to_everyone():
    s = _knocked()
    for viewer in (0, 1, None):
        assert action_seen_by(s, "draw:stock", 1, viewer) == "draw:stock"
    scored = play(s, "accept_layoffs")
    assert not scored.face_down
    for viewer in (0, 1, None):
        assert action_seen_by(scored, "knock:KD", 1, viewer) == "knock:KD"
