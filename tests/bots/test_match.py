"""The match harness: Wilson intervals, duplicate deals, statistics and the botmatch command."""

from __future__ import annotations

import json
import math

import pytest
from django.core.management import call_command

from games.bots.match import _arrangements, main, run_match
from games.bots.match_stats import percentile, wilson


def test_wilson_matches_known_values():
    lo, hi = wilson(50, 100)
    assert lo == pytest.approx(0.4038, abs=1e-4) and hi == pytest.approx(0.5962, abs=1e-4)
    lo, hi = wilson(0, 10)
    assert lo == 0.0 and hi == pytest.approx(0.2775, abs=1e-4)
    lo, hi = wilson(10, 10)
    assert lo == pytest.approx(0.7225, abs=1e-4) and hi == pytest.approx(1.0)
    lo, hi = wilson(620, 1000)
    assert lo == pytest.approx(0.5895, abs=1e-4) and hi == pytest.approx(0.6496, abs=1e-4)
    assert wilson(0, 0) == (0.0, 1.0)


def test_wilson_is_symmetric_and_narrows_with_n():
    for k, n in [(3, 17), (40, 90), (511, 1000)]:
        lo, hi = wilson(k, n)
        lo2, hi2 = wilson(n - k, n)
        assert math.isclose(lo, 1 - hi2) and math.isclose(hi, 1 - lo2)
    assert wilson(600, 1000)[0] > wilson(60, 100)[0]


def test_percentile_nearest_rank():
    xs = list(range(1, 101))
    assert percentile(xs, 50) == 50 and percentile(xs, 95) == 95 and percentile(xs, 100) == 100
    assert percentile([], 50) == 0.0


def test_arrangements_swap_two_and_rotate_more():
    assert _arrangements([0, 1]) == [[0, 1], [1, 0]]
    assert _arrangements([0, 1, 2]) == [[0, 1, 2], [1, 2, 0], [2, 0, 1]]


def test_tiny_match_statistics_add_up():
    stats = run_match("classic", ["medium", "random"], 6, seed=3, settings={"target": 30})
    assert stats["games"] == 6 and stats["deals"] == 3
    a, b = stats["bots"]
    assert a["games"] == b["games"] == 6
    assert a["wins"] + b["wins"] + a["ties"] == 6
    assert a["wins"] == 6  # medium never loses a game to random play
    lo, hi = a["ci95"]
    assert (lo, hi) == pytest.approx(wilson(6, 6))
    assert a["hands"] == b["hands"] == stats["hands"]
    won = a["hands_won"] + b["hands_won"]
    assert won + stats["drawn_hands"] == stats["hands"]
    assert a["gin"] + a["knock_won"] + a["undercut_won"] + a["big_gin"] == a["hands_won"]
    assert a["decisions"] > 0 and a["time_ms"]["p50"] <= a["time_ms"]["p95"] <= a["time_ms"]["max"]


def test_duplicate_deals_are_reproducible_and_jobs_agree():
    one = run_match("straight", ["easy", "baseline"], 4, seed=9, settings={"target": 30})
    two = run_match("straight", ["easy", "baseline"], 4, seed=9, jobs=2, settings={"target": 30})
    for k in ("games", "hands", "drawn_hands"):
        assert one[k] == two[k]
    assert [b["wins"] for b in one["bots"]] == [b["wins"] for b in two["bots"]]


def test_rummy_rotates_seats_and_reports_shares():
    stats = run_match(
        "rummy",
        ["hard", "medium", "easy"],
        3,
        seed=2,
        num_players=3,
        settings={"targets": [[2, 30], [3, 30], [4, 30]]},
    )
    assert stats["games"] == 3 and stats["players"] == 3
    assert sum(b["wins"] for b in stats["bots"]) == 3
    assert sum(b["win_rate"] for b in stats["bots"]) == pytest.approx(1.0)


def test_botmatch_command_prints_json(capsys):
    call_command(
        "botmatch",
        "--mode=classic",
        "--a=medium",
        "--b=random",
        "--games=2",
        "--seed=1",
        "--target=30",
        "--json",
    )
    out = capsys.readouterr()
    stats = json.loads(out.out)
    assert stats["games"] == 2 and stats["bots"][0]["bot"] == "medium"
    assert "2/2 games" in out.err  # the progress bar


def test_module_cli_prints_a_table(capsys):
    assert main(["--a", "baseline", "--b", "random", "--games", "2", "--target", "30"]) == 0
    out = capsys.readouterr().out
    assert "A:baseline" in out and "95% CI" in out


def test_cli_rejects_bad_arguments():
    with pytest.raises(SystemExit):
        main(["--a", "nobody", "--b", "random", "--games", "2"])
    with pytest.raises(SystemExit):
        main(["--games", "0"])


def test_expert_options_from_the_command_line(monkeypatch):
    """``--expert-option KEY=VALUE`` reaches every Expert of the match, typed; a key the
    Expert does not take, or text that is not KEY=VALUE, is refused before any game."""
    import games.bots.match as match

    seen = {}

    def fake_run_match(mode, bots, games, **kw):
        seen.update(kw["bot_options"])
        return {}

    monkeypatch.setattr(match, "run_match", fake_run_match)
    monkeypatch.setattr(match, "format_report", lambda stats: "")
    argv = ["--mode", "hollywood", "--a", "expert", "--b", "hard", "--games", "2"]
    extra = ["match_equity=false", "max_samples=24", "confidence=1.25", "model_mode=classic"]
    assert main(argv + [a for x in extra for a in ("--expert-option", x)]) == 0
    assert seen == {
        "match_equity": False,
        "max_samples": 24,
        "confidence": 1.25,
        "model_mode": "classic",
    }
    for bad in ("nosuch=1", "rng=3", "params=1", "match_equity", "=1"):
        with pytest.raises(SystemExit):
            main(argv + ["--expert-option", bad])
