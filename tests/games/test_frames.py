"""``games.frames`` is the one builder of ``state`` and ``snapshot`` bodies: a connection's
snapshot and its seat's ``state`` frame of the same version agree on everything both carry,
and no other module of the games app assembles either kind or a seat's view."""
from __future__ import annotations

import ast
import pathlib

import pytest
from django.contrib.auth.models import AnonymousUser

from games import broadcast, frames, hooks, selectors, services
from games.models import Seat, Table
from tests.support.tables import play_one, start_table

GAMES = pathlib.Path(__file__).resolve().parents[2] / "games"
SHARED = ("version", "table", "seats", "you", "view", "ratings")


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


def test_a_game_ended_before_its_rules_end_it_offers_no_move(rooms, two_players):
    """After a resignation (a timeout, an abandonment) the engine's state is not over, and the
    view still offered the player to act the draw: nobody acts at a finished table."""
    alice, bob = two_players
    table = start_table(rooms["classic"], [alice, bob])
    services.table_resign(table_id=table.pk, user=bob)
    table.refresh_from_db()
    for user, seat in ((alice, 0), (bob, 1), (AnonymousUser(), None)):
        snapshot = selectors.table_snapshot(table.pk, user, seat, hidden=frozenset())
        state = _state_frame_for(table, user, seat)
        for frame in (snapshot, state):
            assert frame["table"]["status"] == "finished"
            assert frame["view"]["to_act"] is None and frame["view"]["legal_actions"] == []
            assert frame["table"]["finish"]["places"] == [1, 2]  # who resigned is last


def test_a_seat_no_longer_a_humans_gets_the_spectators_frame(rooms, two_players):
    alice, bob = two_players
    table = start_table(rooms["classic"], [alice, bob])
    seats = list(Seat.objects.filter(table=table).order_by("index"))
    bodies = frames.table_state_frames(table, seats)()
    assert set(bodies) == {"0", "1", "spectators"}
    assert frames.frame_for(bodies, 1) is bodies["1"]
    assert frames.frame_for(bodies, 3) is bodies["spectators"]
    assert frames.frame_for(bodies, None) is bodies["spectators"]


def test_ratings_are_part_of_every_frame_in_one_shape(rooms, two_players):
    """Snapshot and state frames carry the seated people's ratings as one list by seat
    (answered by the ratings app through ``games.hooks.table_ratings``)."""
    from leaderboards.models import Rating

    alice, bob = two_players
    Rating.objects.create(user=alice, mode="classic", rating=1612, provisional=False, games=40)
    table = start_table(rooms["classic"], [alice, bob])
    expected = [
        {"seat": 0, "rating": 1612, "provisional": False, "label": "1612", "change": None},
        {"seat": 1, "rating": 1500, "provisional": True, "label": "1500?", "change": None},
    ]
    for user, seat in ((alice, 0), (bob, 1), (AnonymousUser(), None)):
        assert selectors.table_snapshot(table.pk, user, seat, hidden=frozenset())["ratings"] \
            == expected
        assert _state_frame_for(table, user, seat)["ratings"] == expected
    assert "rating_changes" not in str(_state_frame_for(table, alice, 0)["table"])


@pytest.fixture
def table_ratings_answer():
    """Replace the ratings app's answer to ``games.hooks.table_ratings`` for one test (None:
    no answer, as without the ratings app)."""
    from leaderboards.ratings import frames as rating_frames

    hooks.unregister_ratings(rating_frames.table_ratings)
    answers = []

    def use(fn):
        answers.append(hooks.register_table_ratings(fn))

    yield use
    for fn in answers:
        hooks.unregister_ratings(fn)
    hooks.register_table_ratings(rating_frames.table_ratings)


def test_a_move_in_play_leaves_the_ratings_out_without_asking(rooms, two_players,
                                                              table_ratings_answer):
    """A move of a game being played changes no rating and no seat: its frames have no
    ``ratings`` (the client keeps its own) and the ratings app is not asked."""
    asked = []
    table_ratings_answer(lambda *a: asked.append(a) or {})
    table = start_table(rooms["classic"], two_players)
    seats = list(Seat.objects.filter(table=table).select_related("user").order_by("index"))
    move = {"seat": 0, "action": "draw:stock", "source": "player"}
    bodies = frames.table_state_frames(table, seats, last=move)()
    assert all("ratings" not in body for body in bodies.values())
    assert asked == []
    bodies = frames.table_state_frames(table, seats)()  # not a move: asked, carried
    assert all(body["ratings"] == [] for body in bodies.values())
    assert len(asked) == 1


def test_without_a_ratings_app_frames_carry_an_empty_list(rooms, two_players,
                                                         table_ratings_answer):
    table = start_table(rooms["classic"], two_players)
    assert _state_frame_for(table, two_players[0], 0)["ratings"] == []
    assert selectors.table_snapshot(table.pk, two_players[0], 0, hidden=frozenset())[
        "ratings"] == []


def test_a_republished_table_is_a_new_version_with_the_new_ratings(
        rooms, two_players, monkeypatch, django_capture_on_commit_callbacks):
    """What the ratings task calls once it has rated the table's game: the finished table's
    next version, whose state frames carry each seat's change."""
    from leaderboards.ratings import tasks as rating_tasks

    alice, bob = two_players
    monkeypatch.setattr(rating_tasks.game_rated, "delay", lambda game_id: None)
    with django_capture_on_commit_callbacks(execute=True):
        table = services.table_create(user=alice, room=rooms["classic"], rated=True)
        services.table_sit(table_id=table.pk, user=bob)
        for _ in range(2):
            play_one(table.pk, {0: alice, 1: bob})
        services.table_resign(table_id=table.pk, user=bob)
    finished = Table.objects.get(pk=table.pk)
    assert [r["change"] for r in _state_frame_for(finished, alice, 0)["ratings"]] == [None, None]
    sent = []
    monkeypatch.setattr(broadcast, "send_state", lambda **kw: sent.append(kw))
    with django_capture_on_commit_callbacks(execute=True):
        assert rating_tasks.game_rated(finished.game.pk) == 1  # rates, then republishes
    assert Table.objects.get(pk=table.pk).version == finished.version + 1
    assert [m["version"] for m in sent] == [finished.version + 1]
    for body in sent[0]["frames"].values():
        changes = [r["change"] for r in body["ratings"]]
        assert changes[0] > 0 > changes[1]
        assert body["table"]["status"] == "finished"
    snapshot = selectors.table_snapshot(table.pk, bob, 1, hidden=frozenset())
    assert snapshot["version"] == finished.version + 1
    assert snapshot["ratings"] == sent[0]["frames"]["1"]["ratings"]


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
    # The offline table (games/local/) builds the same frames in the browser, where Django and
    # this module cannot run: tests/games/test_offline.py holds its frames to the keys of this
    # module's and its views to view_for's.
    own = [p for p in sorted(GAMES.rglob("*.py"))
           if not {"engine", "bots", "migrations", "local"} & set(p.relative_to(GAMES).parts)]
    found = [b for p in own if p.name != "frames.py" for b in _builders(p)]
    # A computer chooses its move from its seat's view, which is never sent as a frame.
    unexpected = [b for b in found if not (b.startswith("computer.py:") and b.endswith("view_for"))]
    assert not unexpected, unexpected
    assert _builders(GAMES / "frames.py")


def _you(seats, seat=0):
    """``you`` of seat ``seat`` at a table in play, its seats given as (kind, gone, left)."""
    shown = [{"index": i, "kind": kind, "gone": gone, "left": {"username": "x"} if left else None}
             for i, (kind, gone, left) in enumerate(seats)]
    table = {"status": "playing", "rated": False, "seconds_per_turn": 30}
    return frames.you_data(user=AnonymousUser(), seat=seat, table=table, seats=shown)


def test_you_says_whether_resigning_or_claiming_lets_the_game_go_on():
    """The confirmation and the claim button read it from the server (the browser had its
    own copy of the rule, which could drift from ``departures.goes_on_without``)."""
    person, gone, bot, stand_in = ("user", False, False), ("user", True, False), \
        ("bot", False, False), ("bot", False, True)
    # two players: resigning or claiming ends the game
    assert (_you([person, gone])["resign_goes_on"], _you([person, gone])["claim_goes_on"]) \
        == (False, False)
    # four people, one gone: either way the game goes on
    you = _you([person, gone, person, person])
    assert you["can_claim"] and you["resign_goes_on"] and you["claim_goes_on"]
    # the claimer and two gone of three: nobody else plays for a place; resigning would
    # leave the two gone people, so it goes on
    you = _you([person, gone, gone])
    assert you["can_claim"] and not you["claim_goes_on"] and you["resign_goes_on"]
    # a computer still plays for a place beside the claimer: the claim lets it go on; so
    # would a resignation (the gone person still holds their seat until claimed)
    you = _you([person, gone, bot])
    assert you["claim_goes_on"] and you["resign_goes_on"]
    # with no other person, a resignation ends it
    assert not _you([person, bot, bot])["resign_goes_on"]
    # a computer playing for an earlier leaver plays for no place
    you = _you([person, gone, stand_in])
    assert not you["claim_goes_on"] and not you["resign_goes_on"]
    you = _you([person, person, stand_in])
    assert not you["resign_goes_on"]
    # nobody gone: no claim
    you = _you([person, person, person])
    assert not you["can_claim"] and not you["claim_goes_on"] and you["resign_goes_on"]
    # a spectator: neither
    you = _you([person, person, person], seat=None)
    assert not you["resign_goes_on"] and not you["claim_goes_on"]
