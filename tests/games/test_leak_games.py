"""The leak scan over many whole games: every frame the server would send, to every seat and
to the spectators, at every version, holds no card another seat has hidden and nothing of
the stock.

The games are played in-process, without the database or a channel layer: at every step
the frames are produced exactly as ``games.services.publish._publish`` has them produced, by calling
the real ``games.frames.state_frames`` and ``games.broadcast.send_state`` with the captured
``_send_all`` delivering them (a
connection gets its seat's frame; spectators the public one, as the consumer forwards them).
Each delivered frame, in its JSON wire form, goes through the scan of the real-socket tests
(``tests.support.protocol_checks.leaks``) against the true state at its version, and its
view must be the true view of that seat. The moves come from the site's bots, fed the view
the seat was just sent; in some games seeded random choices at lay-offs, knocks and rummy
melds bring undercuts, manual lay-offs and odd melds; in a few the first hand stalls
(drawn gin hands, rummy reshuffles and stalemates); some turns are played by the timeout
path (several moves, one frame) and a few games end by resignation.

``leaks`` does not look for the knocker's face-down card; a separate test does: the others
see a knock as ``last.action = "knock"`` until the hand is scored.
"""
from __future__ import annotations

from collections import Counter

from games import engine as E
from games import frames
from tests.support.leak_games import PLANS, Harness, play_all


def test_no_frame_of_200_seeded_games_leaks(monkeypatch):
    scan = play_all(Harness(monkeypatch))
    total = sum(scan.frames.values())
    seen = scan.seen
    print(f"\ngames {dict(scan.games)}\nframes {total} {dict(scan.frames)}\nseen {dict(seen)}")
    assert not scan.problems, "\n".join(scan.problems[:20])

    assert sum(scan.games.values()) >= 200, scan.games
    for plan in PLANS:
        assert scan.games[plan.key] >= plan.games, (plan.key, scan.games)
        for kind in ("seat", "spectator"):
            assert scan.frames[plan.key, kind] > 0, (plan.key, kind, scan.frames)
        for r in [*range(plan.players), None]:
            assert scan.recipients[plan.key, r] > 0, (plan.key, r, scan.recipients)
    assert total > 20_000, scan.frames
    for what in (
        "deal", "draw", "drew", "discard", "take_upcard", "pass", "meld", "reshuffle",
        "hand_over", "game_over", "outcome knock", "outcome gin", "outcome undercut",
        "outcome drawn", "outcome out", "gin layoff", "rummy layoff", "gin manual layoff",
        "gin layoffs declined", "hollywood win in several columns", "oklahoma spades double",
        "oklahoma ace: gin only", "outcome stalemate", "timeout frame", "resignation",
    ):
        assert seen[what] > 0, (what, dict(seen))
    assert seen["seed shown at the end"] >= sum(scan.games.values())


def test_the_harness_reports_an_injected_leak(monkeypatch):
    """The same harness catches frames that show an opponent's hand, a hand to the
    spectators, the stock's top cards or another seat's private event."""
    real_view, real_events = frames.view, frames.visible_events
    injected: Counter = Counter()

    def leaky_view(state, seat, *, closed=False):
        view = real_view(state, seat, closed=closed)
        if state.is_over or state.phase not in (E.Phase.DRAW, E.Phase.PLAY):
            return view
        if seat == 0 and not injected["opponent"]:
            injected["opponent"] += 1
            view["known_cards"][1] = [c.text for c in state.hands[1]]
        elif seat is None and not injected["spectators"]:
            injected["spectators"] += 1
            view["hand"] = [c.text for c in state.hands[0]]
        elif seat == 1 and len(state.stock) > 5 and not injected["stock"]:
            injected["stock"] += 1
            view["next_cards"] = [c.text for c in state.stock[-3:]]
        return view

    def leaky_events(events, seat):
        out = real_events(events, seat)
        if seat == 1 and not injected["event"]:
            private = [e.to_dict() for e in events if not e.visible_to(seat)]
            if private:
                injected["event"] += 1
                out += private
        return out

    monkeypatch.setattr(frames, "view", leaky_view)
    monkeypatch.setattr(frames, "visible_events", leaky_events)
    harness = Harness(monkeypatch)
    harness.play(PLANS[0], 0)
    harness.play(PLANS[4], 0)
    assert injected == {"opponent": 1, "spectators": 1, "stock": 1, "event": 1}, injected
    problems = harness.scan.problems
    assert any("seat 0: hidden cards" in p for p in problems), problems
    assert any("spectators: a hand in the public view" in p for p in problems), problems
    assert any("seat 1: the stock's order" in p for p in problems), problems
    assert any("seat 1: someone else's event" in p for p in problems), problems
    assert any("is not the true view" in p for p in problems), problems


def test_the_knock_card_stays_face_down_during_lay_offs(monkeypatch):
    harness = Harness(monkeypatch, face_down=True)
    for number in range(12):
        harness.play(PLANS[0], number)
    scan = harness.scan
    assert scan.seen["lay-off phase frames"] > 0, dict(scan.seen)
    assert not scan.problems, "\n".join(scan.problems[:10])
