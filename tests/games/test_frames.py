"""``games.frames`` is the one builder of ``state`` and ``snapshot`` bodies: a connection's
snapshot and its seat's ``state`` frame of the same version agree on everything both carry,
and no other module of the games app assembles either kind or a seat's view."""
from __future__ import annotations

import ast
import pathlib

from django.contrib.auth.models import AnonymousUser

from games import frames, selectors
from games.models import Seat
from tests.games.conftest import start_table

GAMES = pathlib.Path(__file__).resolve().parents[2] / "games"
SHARED = ("version", "table", "seats", "you", "view")


def _without_remaining(clock):
    return None if clock is None else {k: v for k, v in clock.items() if k != "remaining_ms"}


def _state_frame_for(table, user, seat):
    seats = list(Seat.objects.filter(table=table).select_related("user").order_by("index"))
    bodies = frames.table_state_frames(table, seats)()
    return frames.for_connection(frames.frame_for(bodies, seat), user=user, seat=seat)


def test_the_snapshot_and_the_state_frame_of_a_seat_agree(rooms, two_players):
    alice, bob = two_players
    table = start_table(rooms["classic"], [alice, bob])
    table.refresh_from_db()
    viewers = [(alice, 0), (bob, 1), (AnonymousUser(), None)]
    for user, seat in viewers:
        snapshot = selectors.table_snapshot(table.pk, user, seat, hidden=frozenset())
        state = _state_frame_for(table, user, seat)
        assert snapshot["type"] == "snapshot" and state["type"] == "state"
        for key in SHARED:
            assert snapshot[key] == state[key], (seat, key)
        assert _without_remaining(snapshot["clock"]) == _without_remaining(state["clock"])
        assert state["clock"]["remaining_ms"] > 0
    # Each seat sees its own hand, the spectators none.
    hands = [_state_frame_for(table, u, s)["view"].get("hand") for u, s in viewers]
    assert hands[0] and hands[1] and hands[0] != hands[1] and hands[2] is None


def test_a_seat_no_longer_a_humans_gets_the_spectators_frame(rooms, two_players):
    alice, bob = two_players
    table = start_table(rooms["classic"], [alice, bob])
    seats = list(Seat.objects.filter(table=table).order_by("index"))
    bodies = frames.table_state_frames(table, seats)()
    assert set(bodies) == {"0", "1", "spectators"}
    assert frames.frame_for(bodies, 1) is bodies["1"]
    assert frames.frame_for(bodies, 3) is bodies["spectators"]
    assert frames.frame_for(bodies, None) is bodies["spectators"]


def _builders(path: pathlib.Path) -> list[str]:
    """What in ``path`` builds a frame body or a seat's view: a dict literal whose ``type``
    is ``state`` or ``snapshot``, or a call of the engine's views. A stored game's final
    score sheet (``spectator_view(..., history="none")``) is not a frame's view."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Dict):
            for k, v in zip(node.keys, node.values, strict=True):
                if (isinstance(k, ast.Constant) and k.value == "type"
                        and isinstance(v, ast.Constant) and v.value in ("state", "snapshot")):
                    found.append(f"{path.name}:{node.lineno} a {v.value} frame")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            name = node.func.attr
            sheet = any(k.arg == "history" and isinstance(k.value, ast.Constant)
                        and k.value.value == "none" for k in node.keywords)
            if name == "view_for" or (name == "spectator_view" and not sheet):
                found.append(f"{path.name}:{node.lineno} {name}")
    return found


def test_only_frames_builds_state_and_snapshot_bodies():
    own = [p for p in sorted(GAMES.rglob("*.py"))
           if not {"engine", "bots", "migrations"} & set(p.relative_to(GAMES).parts)]
    found = [b for p in own if p.name != "frames.py" for b in _builders(p)]
    # A computer chooses its move from its seat's view, which is never sent as a frame.
    unexpected = [b for b in found if not (b.startswith("computer.py:") and b.endswith("view_for"))]
    assert not unexpected, unexpected
    assert _builders(GAMES / "frames.py")
