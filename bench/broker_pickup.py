"""How long a task waits in the embedded default's filesystem broker before a worker takes it.

    .venv/bin/python bench/broker_pickup.py [--tasks 10] [--gap 0.37] [--polling 0.1]
        [--countdown 0.5 [--timer 1.0]]

Starts one Celery worker on a throwaway ``GINSITE_VAR_DIR`` (SQLite and broker folders of its
own), sends ``--tasks`` computer-move tasks (for a table that does not exist: the task finds
nothing to do) ``--gap`` seconds apart, and reads from the worker's log when each was
received. Every computer move and sweep of the embedded site is such a task, so the pickup
is part of every computer move's delay. With ``--countdown`` each task is sent with that
countdown (a computer's pause), as the site sends them, and the figure is how late it ran
after its moment (``--timer``: the worker's ``CELERY_WORKER_TIMER_PRECISION``).
"""
from __future__ import annotations

import argparse
import datetime
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SEND = """
import sys, time, django
django.setup()
from celery import current_app
sig = current_app.signature("games.table_bot_move", args=(987654321, 1))
countdown = float(sys.argv[3])
for _ in range(int(sys.argv[1])):
    t = time.time()
    task = sig.apply_async(countdown=countdown) if countdown else sig.apply_async()
    print("SENT", t + countdown, task.id, flush=True)
    time.sleep(float(sys.argv[2]))
"""
RECEIVED = re.compile(r"\[(.*?): .*\[([0-9a-f-]{36})\] received")
# (the task's first run: it ends at once, done or retried, on the throwaway database)
DONE = re.compile(r"\[(.*?): INFO/ForkPoolWorker.*\[([0-9a-f-]{36})\] (?:succeeded|retry)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tasks", type=int, default=10)
    parser.add_argument("--gap", type=float, default=0.37)
    parser.add_argument("--polling", default=None,
                        help="CELERY_POLLING_INTERVAL for the worker (default: the setting's)")
    parser.add_argument("--countdown", type=float, default=0.0)
    parser.add_argument("--timer", default=None,
                        help="CELERY_WORKER_TIMER_PRECISION for the worker (default: the "
                             "setting's)")
    args = parser.parse_args()
    pattern = DONE if args.countdown else RECEIVED
    with tempfile.TemporaryDirectory() as var:
        env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
        env.update(GINSITE_VAR_DIR=var, DJANGO_SETTINGS_MODULE="ginsite.settings", TZ="UTC")
        if args.polling is not None:
            env["CELERY_POLLING_INTERVAL"] = args.polling
        if args.timer is not None:
            env["CELERY_WORKER_TIMER_PRECISION"] = args.timer
        log = Path(var) / "worker.log"
        with log.open("w") as out:
            worker = subprocess.Popen(
                [sys.executable, "-m", "celery", "-A", "ginsite", "worker", "--concurrency=1",
                 "--without-mingle", "--without-gossip", "-l", "INFO"],
                cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
        try:
            time.sleep(8)  # the worker's start
            sent = subprocess.run([sys.executable, "-c", SEND, str(args.tasks), str(args.gap),
                                   str(args.countdown)],
                                  cwd=ROOT, env=env, capture_output=True, text=True, check=True)
            time.sleep(max(3.0, args.tasks * 1.0))
        finally:
            worker.send_signal(signal.SIGTERM)
            worker.wait(timeout=30)
        times = {line.split()[2]: float(line.split()[1])
                 for line in sent.stdout.splitlines() if line.startswith("SENT")}
        received: dict[str, float] = {}
        for line in log.read_text().splitlines():
            m = pattern.match(line)
            if m and m.group(2) not in received:
                at = datetime.datetime.strptime(m.group(1), "%Y-%m-%d %H:%M:%S,%f")
                received[m.group(2)] = at.replace(tzinfo=datetime.UTC).timestamp()
    waits = [round((received[i] - t) * 1000) for i, t in times.items() if i in received]
    what = "late after the countdown" if args.countdown else "pickup"
    print(f"tasks sent {len(times)}, received {len(waits)}; {what} ms in order: {waits}")
    if waits:
        print(f"{what} ms: median {sorted(waits)[len(waits) // 2]}, max {max(waits)}")
    return 0 if len(waits) == len(times) else 1


if __name__ == "__main__":
    sys.exit(main())
