"""``bench/ws_load.py`` that cannot run says so and exits 1: without the development
requirements it reported "0 actions" (the connect error hidden in its ``errors``) with exit
status 0, which reads as a measurement."""
from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
SPEC = importlib.util.spec_from_file_location("ws_load", ROOT / "bench" / "ws_load.py")
ws_load = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(ws_load)


def test_without_the_websocket_client_it_exits_1_with_the_reason(tmp_path):
    # A ``websockets`` that cannot be imported, ahead of the installed one on the path.
    (tmp_path / "websockets").mkdir()
    (tmp_path / "websockets" / "__init__.py").write_text(
        "raise ModuleNotFoundError(\"No module named 'websockets'\", name='websockets')\n")
    env = {k: v for k, v in os.environ.items()
           if k not in {"DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE"}}
    env["PYTHONPATH"] = str(tmp_path)
    result = subprocess.run(
        [sys.executable, "bench/ws_load.py", "--tables", "1", "--duration", "0.5",
         "--warmup", "0", "--json"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 1, (result.stdout, result.stderr)
    assert "cannot run" in result.stderr and "requirements-dev.txt" in result.stderr
    assert '"actions"' not in result.stdout  # no report that looks like a measurement


def test_a_run_that_measured_nothing_is_a_failure():
    stats = ws_load.Stats()
    stats.errors = {"connect:ModuleNotFoundError": 50}
    assert ws_load.failure(stats, 50) == \
        "50 of 50 tables could not connect (ModuleNotFoundError x50)"
    stats = ws_load.Stats()
    stats.errors = {"connect:TimeoutError": 2}
    stats.actions = 400
    assert "2 of 10 tables could not connect" in ws_load.failure(stats, 10)
    stats = ws_load.Stats()
    stats.errors = {"no_ack": 3}
    assert ws_load.failure(stats, 5) == "no action was played and acknowledged (errors: no_ack x3)"
    stats.actions = 10
    assert ws_load.failure(stats, 5) is None


def test_statements_and_layer_calls_are_summed_over_the_processes(tmp_path):
    """The servers' and the worker's counters (``bench/counted.py``) add up; a file being
    replaced (unreadable for an instant) counts as nothing rather than failing the run."""
    (tmp_path / "101.json").write_text('{"sql": 40, "layer": 7}')
    (tmp_path / "102.json").write_text('{"sql": 2, "layer": 1}')
    (tmp_path / "103.json").write_text('{"sql": ')
    assert ws_load.counts(str(tmp_path)) == {"sql": 42, "layer": 8}
    assert ws_load.counts(None) == {"sql": 0, "layer": 0}


def test_the_servers_count_every_statement(db):
    from django.db import connection

    spec = importlib.util.spec_from_file_location("counted", ROOT / "bench" / "counted.py")
    counted = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(counted)
    with connection.execute_wrapper(counted._count_sql):
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.execute("SELECT 2")
    assert counted.COUNTS == {"sql": 2, "layer": 0}


def test_a_free_move_sends_the_tables_frames_again_one_version_on():
    """``bench/ws_floor.py`` (``ws_load --floor``): after a table's first move, a move
    publishes that move's frames with the next version and a new publish id, and leaves
    the template as it was."""
    from bench import ws_floor
    from core.channels import Outbox

    frames = {"0": {"type": "state", "version": 3, "view": {"hand": ["AS"]}},
              "spectators": {"type": "state", "version": 3, "view": {}}}
    template = {"type": "table.frames", "frames": frames, "table_id": 7, "version": 3,
                "publish": "first"}
    ws_floor._templates[7] = template
    try:
        outbox = Outbox()
        assert ws_floor.free_act(table_id=7, expected_version=10, outbox=outbox) == 11
        [(group, message)] = outbox.take()
    finally:
        del ws_floor._templates[7]
    assert group == "table.7"
    assert message["version"] == 11 and message["publish"] not in ("first", None)
    assert {k: f["version"] for k, f in message["frames"].items()} == {"0": 11, "spectators": 11}
    assert message["frames"]["0"]["view"] == {"hand": ["AS"]}
    assert template["version"] == 3 and frames["0"]["version"] == 3
