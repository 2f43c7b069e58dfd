"""The table's and the replay viewer's browser code: their pure-JavaScript unit tests, run by
Node's own test runner, a cross-check of the browser's meld solver against the rules engine,
and the card labels defined in one module."""
import json
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from games import engine as E
from games import replay

ROOT = Path(__file__).resolve().parents[2]
JS = ROOT / "static" / "js"
JS_TESTS = JS / "table" / "tests"
REPLAY_TESTS = JS / "replay" / "tests"
SITE_TESTS = JS / "tests"
NODE = shutil.which("node")

needs_node = pytest.mark.skipif(NODE is None, reason="node is not installed on this machine")


@needs_node
@pytest.mark.parametrize("folder", [JS_TESTS, REPLAY_TESTS, SITE_TESTS],
                         ids=["table", "replay", "site"])
def test_node_unit_tests_pass(folder):
    proc = subprocess.run(
        [NODE, "--test", str(folder) + "/"], cwd=ROOT, capture_output=True, text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert "# fail 0" in proc.stdout and "# pass 0" not in proc.stdout


def test_card_labels_are_defined_once_in_the_browser_code():
    """The suit symbols (and so the card labels and names) live in table/cards.js; the replay
    viewer and every other module import them from there."""
    symbols = ("\u2663", "\\u2663", "\u2666", "\\u2666")  # the symbol, or its JS escape
    holders = sorted(
        str(path.relative_to(JS)) for path in JS.rglob("*.js")
        if "tests" not in path.parts and any(s in path.read_text(encoding="utf-8") for s in symbols)
    )
    assert holders == ["table/cards.js"]
    viewer = (JS / "replay" / "viewer.js").read_text(encoding="utf-8")
    assert 'from "../table/cards.js"' in viewer


@needs_node
def test_server_card_labels_agree_with_the_browser():
    """The replay's move sentences are written on the server (games/replay.py): its labels
    are the browser's."""
    deck = [str(c) for c in E.full_deck()]
    script = ('import { cardLabel } from "./static/js/table/cards.js";'
              f"console.log(JSON.stringify({json.dumps(deck)}.map(cardLabel)));")
    proc = subprocess.run([NODE, "--input-type=module", "-e", script], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    browser = json.loads(proc.stdout)
    assert len(browser) == 52 and "10\u2660" in browser
    assert [replay.card_label(c) for c in deck] == browser


@needs_node
def test_browser_solver_agrees_with_the_engine():
    rng = random.Random(2024)
    deck = [str(c) for c in E.full_deck()]
    melds, layoffs = [], []
    for i in range(400):
        hand = rng.sample(deck, 10 if i % 2 else 11)
        melds.append({"hand": hand, "deadwood": E.best_melds(hand).deadwood})
    # lay-off cases from real knocks: the knocker's melds and the defender's ten cards
    while len(layoffs) < 150:
        cards = rng.sample(deck, 20)
        knocker, defender = cards[:10], cards[10:]
        res = E.best_melds(knocker)
        if not res.melds:
            continue
        table = [m.to_list() for m in res.melds]
        want = E.best_layoffs(defender, table).deadwood
        layoffs.append({"hand": defender, "table": table, "deadwood": want})
    proc = subprocess.run(
        [NODE, str(JS_TESTS / "crosscheck.mjs")], cwd=ROOT, capture_output=True, text=True,
        input=json.dumps({"melds": melds, "layoffs": layoffs}), timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == []
