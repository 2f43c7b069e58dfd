"""Views, events and isolation: what each seat may know, and nothing else."""

import ast
import json
import pathlib
import random
import subprocess
import sys

import pytest

from games.engine import (
    Deal,
    EngineError,
    GameState,
    InvalidActionError,
    Visibility,
    apply,
    legal_actions,
    new_game,
    spectator_view,
    view_for,
)
from games.engine.selfplay import play_game

ENGINE = pathlib.Path(__file__).resolve().parents[2] / "games" / "engine"


def test_view_shows_own_hand_never_opponents_or_stock_or_seed():
    s = new_game("classic", seed=42)
    for seat in (0, 1):
        v = view_for(s, seat)
        json.dumps(v)
        assert v["hand"] == sorted(c.text for c in s.hands[seat]) or v["hand"] == [
            c.text for c in sorted(s.hands[seat])
        ]
        text = json.dumps(v)
        for c in s.hands[1 - seat] + s.stock:
            assert f'"{c.text}"' not in text
        assert "seed" not in v and str(s.seed) not in json.dumps(v.get("history"))
        assert v["card_counts"] == [10, 10] and v["stock_count"] == 31
        assert v["discard_pile"] == [s.upcard.text]
    sv = spectator_view(s)
    assert sv["hand"] is None and sv["legal_actions"] == []


def test_view_legal_actions_only_for_seat_to_act():
    s = new_game("classic", seed=42)
    assert view_for(s, s.to_act)["legal_actions"] == ["take_upcard", "pass"]
    assert view_for(s, 1 - s.to_act)["legal_actions"] == []


def test_stock_draw_is_private_discard_pickup_is_public():
    deal = Deal.make(
        (("9C 9D 9S 2D 3D 4D QS JS 8C TC").split(), ("AS 2S 3S 4H 5H 6H 7C 7D 7H 3C").split()),
        "KC",
        ["KD"],
    )
    s = new_game("classic", seed=1, dealer=0, deals=[deal])
    s, _ = apply(s, "pass", seat=1)
    s, _ = apply(s, "pass", seat=0)
    s, events = apply(s, "draw:stock", seat=1)
    private = [e for e in events if e.visibility is Visibility.SEAT]
    public = [e for e in events if e.visibility is Visibility.PUBLIC]
    assert (
        private[0].data["card"] == "KD"
        and private[0].visible_to(1)
        and not private[0].visible_to(0)
    )
    assert not private[0].visible_to(None)
    assert "KD" not in json.dumps([e.data for e in public])
    assert "KD" not in json.dumps(view_for(s, 0)) and "KD" in view_for(s, 1)["hand"]
    s, _ = apply(s, "discard:3C", seat=1)
    s, events = apply(s, "draw:discard", seat=0)
    assert events[0].data == {"seat": 0, "source": "discard", "card": "3C"}
    assert view_for(s, 1)["known_cards"][0] == ["3C"]


def test_a_seats_history_names_the_cards_it_drew_from_the_stock_and_nobody_elses():
    """A reload rebuilds the log from the view's history: the drawer's own history names its
    stock draws (it saw them), the other seat's and a spectator's do not."""
    deal = Deal.make(
        (("9C 9D 9S 2D 3D 4D QS JS 8C TC").split(), ("AS 2S 3S 4H 5H 6H 7C 7D 7H 3C").split()),
        "KC",
        ["KD", "QD"],
    )
    s = new_game("classic", seed=1, dealer=0, deals=[deal])
    for action, seat in (("pass", 1), ("pass", 0), ("draw:stock", 1), ("discard:3C", 1),
                         ("draw:stock", 0)):
        s, _ = apply(s, action, seat=seat)
    draws = [e["data"] for e in view_for(s, 1)["history"] if e["kind"] == "draw"]
    assert draws == [{"seat": 1, "source": "stock", "stock": 30, "card": "KD"},
                     {"seat": 0, "source": "stock", "stock": 29}]
    draws = [e["data"] for e in view_for(s, 0)["history"] if e["kind"] == "draw"]
    assert draws == [{"seat": 1, "source": "stock", "stock": 30},
                     {"seat": 0, "source": "stock", "stock": 29, "card": "QD"}]
    assert "KD" not in json.dumps(spectator_view(s)) and "QD" not in json.dumps(spectator_view(s))
    # the game's own (public) history is untouched
    assert all("card" not in e["data"] for e in s.history if e["kind"] == "draw")
    # the whole game's history names them too (this hand's part)
    assert view_for(s, 1, history="game")["history"] == view_for(s, 1)["history"]
    # stored and loaded (also by a server that stored the state before "drawn" existed)
    d = json.loads(json.dumps(s.to_dict(compact=True)))
    assert view_for(GameState.from_dict(d), 1) == view_for(s, 1)
    del d["drawn"]
    assert "KD" not in json.dumps(view_for(GameState.from_dict(d), 1)["history"])
    d["drawn"] = [[2, 1, "Zz"]]
    with pytest.raises(EngineError, match="state dict is not valid"):
        GameState.from_dict(d)


def test_the_drawn_cards_are_forgotten_at_the_next_deal():
    state = new_game("classic", seed=8)
    rng = random.Random(8)
    saw_card = False
    while state.hand_number == 1 and not state.is_over:
        seat = state.to_act
        state, _ = apply(state, str(rng.choice(legal_actions(state))), seat)
        saw_card |= any("card" in e["data"] for e in view_for(state, seat)["history"]
                        if e["kind"] == "draw" and e["data"]["source"] == "stock")
    assert saw_card and state.hand_number == 2
    for seat in (0, 1):
        assert all("card" not in e["data"] for e in view_for(state, seat)["history"]
                   if e["kind"] == "draw" and e["data"]["source"] == "stock")


def test_seed_revealed_once_over_and_showdown_shown():
    s = play_game("classic", 5, check=False)
    v = view_for(s, 0)
    assert v["seed"] == 5 and v["is_over"] and v["result"]["totals"]
    assert v["last_hand"]["outcome"] in ("knock", "gin", "big_gin", "undercut")


def test_views_never_leak_during_random_play():
    for mode, n in (("classic", 2), ("hollywood", 2), ("rummy", 3)):
        play_game(mode, 21, n, check=True, illegal_samples=1)


def test_score_sheet_rows_carry_running_totals_per_column_and_seat():
    """``running``: per column, each seat's total after the hand; a hand that did not score
    in a column repeats that column's totals; the last row agrees with the columns."""
    repeats = 0
    for mode, n, seeds in (
        ("hollywood", 2, range(3)),
        ("straight", 2, range(4)),
        ("rummy", 3, (2,)),
    ):
        for seed in seeds:
            s = play_game(mode, seed, n, check=False)
            sheet = view_for(s, 0)["score_sheet"]
            assert sheet == spectator_view(s)["score_sheet"]
            totals = [[0] * n for _ in sheet["columns"]]
            for row in sheet["hands"]:
                before = [list(t) for t in totals]
                for c in row["columns"]:
                    totals[c][row["winner"]] += row["points"]
                assert row["running"] == totals
                repeats += sum(row["running"][c] == before[c] for c in range(len(totals)))
            assert totals == [col["points"] for col in sheet["columns"]]
    assert repeats  # some rows left a column unchanged (drawn hands, Hollywood's closed games)


def test_garbage_actions_raise_invalid_action_error():
    s = new_game("classic", seed=1)
    # '²' passed str.isdigit() and int() refused it (a ValueError, not the engine's error);
    # '١' was read as 1; 5,000 digits passed Python's limit on int()
    for bad in ("", "discard", "discard:ZZ", "layoff:8H", "layoff:8H>x", "meld:5H", "fly",
                "layoff:8H>²", "layoff:8H>١", "layoff:8H>" + "9" * 5000):
        with pytest.raises(InvalidActionError):
            apply(s, bad)
    with pytest.raises(EngineError):
        new_game("nosuchmode", seed=1)
    with pytest.raises(EngineError):
        new_game("classic", seed=1, num_players=3)


def test_engine_imports_nothing_from_django():
    for path in ENGINE.rglob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            for name in names:
                top = name.split(".")[0]
                assert top in sys.stdlib_module_names, f"{path.name} imports {name}"
    code = (
        "import sys, games.engine, games.engine.record, games.engine.selfplay;"
        "print(any(m.startswith('django') for m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=ENGINE.parents[1],
        check=True,
    )
    assert out.stdout.strip() == "False"


def test_cli_melds_and_selfplay():
    root = ENGINE.parents[1]
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "games.engine",
            "melds",
            "AS",
            "2S",
            "3S",
            "7D",
            "7H",
            "7C",
            "KD",
            "KH",
            "9S",
            "4C",
        ],
        capture_output=True,
        text=True,
        cwd=root,
        check=True,
    )
    assert json.loads(out.stdout) == {
        "melds": [["AS", "2S", "3S"], ["7C", "7D", "7H"]],
        "deadwood_cards": ["4C", "KD", "KH", "9S"],
        "deadwood": 33,
    }
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "games.engine",
            "selfplay",
            "--mode",
            "classic",
            "--games",
            "2",
            "--seed",
            "1",
        ],
        capture_output=True,
        text=True,
        cwd=root,
        check=True,
    )
    summary = json.loads(out.stdout)
    assert summary["games"] == 2 and summary["hands"] > 0 and summary["actions"] > 0


@pytest.mark.parametrize(
    "name",
    ["cards", "meld", "meld_search", "modes", "actions", "state", "phases", "record", "seat_views"],
)
def test_docstring_examples_run(name):
    import doctest
    import importlib

    module = importlib.import_module(f"games.engine.{name}")
    result = doctest.testmod(module)
    assert result.failed == 0 and result.attempted > 0


def test_layoffs_docstring_examples_run():
    import doctest

    from games.engine import layoffs

    result = doctest.testmod(layoffs)
    assert result.failed == 0 and result.attempted > 0


def test_cli_replays_the_engines_record_and_a_sites_export(tmp_path):
    """``python -m games.engine replay`` took only the engine's own JSON: a record downloaded
    from a game's page (``ginsite-game/1``, the engine's record under ``engine``) was an
    "unknown record format"."""
    from games.engine import GameRecord

    state = play_game("classic", 3, 2, check=False)
    record = GameRecord.from_state(state).to_dict()
    bare = tmp_path / "game.json"
    bare.write_text(json.dumps(record))
    site = tmp_path / "site.json"
    site.write_text(json.dumps({"format": "ginsite-game/1", "game_id": 7, "engine": record}))
    wrong = tmp_path / "wrong.json"
    wrong.write_text(json.dumps({"format": "ginsite-game/1", "engine": {"format": "x/9"}}))
    outs = []
    for path in (bare, site, wrong):
        outs.append(subprocess.run([sys.executable, "-m", "games.engine", "replay", str(path)],
                                   capture_output=True, text=True, cwd=ENGINE.parents[1]))
    assert outs[0].returncode == outs[1].returncode == 0, outs[1].stderr
    assert json.loads(outs[0].stdout) == json.loads(outs[1].stdout)
    assert json.loads(outs[1].stdout)["hands"] == len(state.hand_results)
    assert outs[2].returncode == 2 and "unknown record format 'x/9'" in outs[2].stderr
