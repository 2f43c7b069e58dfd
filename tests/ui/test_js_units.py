"""The table's browser code: its pure-JavaScript unit tests, run by Node's own test runner,
and a cross-check of the browser's meld solver against the rules engine."""
import json
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from games import engine as E

ROOT = Path(__file__).resolve().parents[2]
JS_TESTS = ROOT / "static" / "js" / "table" / "tests"
NODE = shutil.which("node")

needs_node = pytest.mark.skipif(NODE is None, reason="node is not installed on this machine")


@needs_node
def test_node_unit_tests_pass():
    proc = subprocess.run(
        [NODE, "--test", str(JS_TESTS) + "/"], cwd=ROOT, capture_output=True, text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert "# fail 0" in proc.stdout


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
