"""N copies of the example bot (docs/examples/gin_bot.py) play the site's Expert computer
through the bot API, on the site started as the README says (``bash scripts/run.sh``: Daphne
and a Celery worker with beat, SQLite, the embedded channel layer; in a scratch directory).

Each bot is a bot account with a ``bot:play`` token (made with the ORM in the scratch
database); each runs in its own thread, and in a loop opens a table against the Expert
(``POST /api/bot/computer/``, untimed, to ``--target`` points) and plays it with the example
bot's own ``Bot.play`` (the table socket with its token, one ``action`` per move), until
``--duration`` seconds have passed. Measured, over the moves made after ``--warmup``:

* moves per second (the bots' moves, all bots together; the computer's moves are not
  counted, and each comes after its human-like pause of 0.6-1.5 s, ``GAMES_BOT_DELAY``);
* move round trip: the example bot's own measure, from sending an ``action`` to its ``ack``
  (p50, p99, max);
* games finished, and the 1-minute load average before and after (the bots run on the same
  machine as the site).

Run::

    .venv/bin/python bench/bots_api.py            # 20 bots, 60 s
    .venv/bin/python bench/bots_api.py --bots 5 --duration 30 --json
    .venv/bin/python bench/bots_api.py --level 1   # the Easy computer: less worker CPU

The goal (docs/bot-api.md, "Speed"): 20 bots, p99 round trip <= 50 ms on the embedded
default on a quiet machine. A run that cannot measure (the site did not start, no move was
made) says so on stderr and exits 1.
"""
from __future__ import annotations

import argparse
import json
import os
import runpy
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.harness import free_port  # noqa: E402

EXAMPLE = ROOT / "docs" / "examples" / "gin_bot.py"


def load_example() -> dict:
    """The example bot's names (``Bot``, ``choose``), run from its file as the docs show it."""
    return runpy.run_path(str(EXAMPLE))


def start_site(var: Path, port: int) -> subprocess.Popen:
    """``bash scripts/run.sh`` on ``port`` with its own var directory; waits until healthy."""
    env = dict(os.environ, GINSITE_VAR_DIR=str(var), PORT=str(port), HOST="127.0.0.1",
               PYTHONUNBUFFERED="1")
    for unset in ("DATABASE_URL", "REDIS_URL", "CELERY_TASK_ALWAYS_EAGER",
                  "DJANGO_SETTINGS_MODULE", "GINSITE_RELAY_URL", "DEBUG"):
        env.pop(unset, None)  # the embedded default, as a fresh clone runs it
    log = open(var.parent / "run.log", "w")  # noqa: SIM115 - the process keeps it
    proc = subprocess.Popen(["bash", "scripts/run.sh"], cwd=ROOT, env=env, stdout=log,
                            stderr=subprocess.STDOUT, start_new_session=True)
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as r:
                if json.loads(r.read()).get("status") == "ok":
                    return proc
        except Exception:
            pass
        if proc.poll() is not None:
            break
        time.sleep(0.5)
    stop_site(proc)
    raise SystemExit("the site did not start:\n" + (var.parent / "run.log").read_text()[-3000:])


def stop_site(proc: subprocess.Popen) -> None:
    """Ctrl-C to the run command's process group, as a person would; SIGKILL after 30 s."""
    for sig, grace in ((signal.SIGINT, 30), (signal.SIGKILL, 10)):
        if proc.poll() is not None:
            return
        os.killpg(proc.pid, sig)
        try:
            proc.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            continue


def make_bots(var: Path, count: int) -> list[str]:
    """``count`` bot accounts with a ``bot:play`` token each, in the site's database."""
    os.environ["GINSITE_VAR_DIR"] = str(var)
    os.environ["DJANGO_SETTINGS_MODULE"] = "ginsite.settings"
    for key in ("DATABASE_URL", "REDIS_URL"):
        os.environ.pop(key, None)
    import django

    from ginsite.localfiles import prepare

    prepare()
    django.setup()
    from django.contrib.auth import get_user_model

    from accounts.services import api_token_create, bot_account_convert

    tokens = []
    for i in range(count):
        user = get_user_model().objects.create_user(f"benchbot{i}", password=None)
        bot_account_convert(user=user)
        tokens.append(api_token_create(user=user, name="bench", scopes=["bot:play"])[1])
    return tokens


class Runner:
    """One bot's loop: a table against the Expert, played to its end, again until the end."""

    def __init__(self, example, base: str, token: str, args, until: float):
        self.bot = example["Bot"](base, token)
        self.args, self.until = args, until
        self.games, self.errors, self.timed = 0, [], []
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self):
        while time.monotonic() < self.until:
            status, body = self.bot.api("POST", "/api/bot/computer/", {
                "mode": self.args.mode, "level": self.args.level, "seconds_per_turn": 0,
                "target": self.args.target})
            if status != 201:
                self.errors.append(f"{status} {body}")
                time.sleep(1)
                continue
            try:
                self.bot.play(body["table"]["id"])
                self.games += 1
            except Exception as exc:  # the socket closed: counted, and a new game
                self.errors.append(repr(exc))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bots", type=int, default=20)
    parser.add_argument("--duration", type=float, default=60.0)
    parser.add_argument("--warmup", type=float, default=5.0)
    parser.add_argument("--mode", default="classic")
    parser.add_argument("--level", type=int, default=4, help="the computer: 4 is Expert")
    parser.add_argument("--target", type=int, default=50)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    example = load_example()
    with tempfile.TemporaryDirectory(prefix="bots-api-") as tmp:
        var, port = Path(tmp) / "var", free_port()
        var.mkdir()
        site = start_site(var, port)
        try:
            tokens = make_bots(var, args.bots)
            load_before = os.getloadavg()[0]
            start = time.monotonic()
            until = start + args.warmup + args.duration
            runners = [Runner(example, f"http://127.0.0.1:{port}", t, args, until)
                       for t in tokens]
            for r in runners:
                r.thread.start()
            time.sleep(args.warmup)
            marks = [len(r.bot.round_trips) for r in runners]
            measured_from = time.monotonic()
            time.sleep(max(0.0, until - measured_from))
            elapsed = time.monotonic() - measured_from
            trips = [t for r, m in zip(runners, marks, strict=True) for t in r.bot.round_trips[m:]]
            load_after = os.getloadavg()[0]
            errors = [e for r in runners for e in r.errors]  # before the site stops
            games = sum(r.games for r in runners)
        finally:
            stop_site(site)
    cuts = statistics.quantiles(trips, n=100, method="inclusive") if len(trips) > 1 else []
    report = {
        "bots": args.bots, "mode": args.mode, "level": args.level, "target": args.target,
        "seconds": round(elapsed, 1), "moves": len(trips),
        "moves_per_s": round(len(trips) / elapsed, 1) if elapsed else 0.0,
        "rtt_p50_ms": round(statistics.median(trips) * 1000, 1) if trips else None,
        "rtt_p99_ms": round(cuts[98] * 1000, 1) if cuts else None,
        "rtt_max_ms": round(max(trips) * 1000, 1) if trips else None,
        "games_finished": games, "errors": len(errors),
        "load_1min_before": round(load_before, 2), "load_1min_after": round(load_after, 2),
    }
    if args.json:
        print(json.dumps(report))
    else:
        for key, value in report.items():
            print(f"{key:>18}: {value}")
        for e in errors[:5]:
            print("error:", e)
    if not trips:
        print("no move was made: not a measurement", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
