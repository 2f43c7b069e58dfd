"""What the benchmarks share: percentiles, the embedded site in a throwaway folder, a free
loopback port, the wait for a server to listen, and a process's CPU time.

Imported as ``bench.harness`` by the scripts beside it (each puts the repository first on
the path), whether run as scripts or loaded by the tests."""
from __future__ import annotations

import asyncio
import atexit
import os
import secrets
import shutil
import socket
import tempfile
import time
from pathlib import Path


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile (0-1) of ``values``, interpolated between ranks; NaN when empty."""
    if not values:
        return float("nan")
    values = sorted(values)
    k = (len(values) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(values) - 1)
    return values[lo] + (values[hi] - values[lo]) * (k - lo)


def embedded_site(prefix: str) -> str:
    """Before ``django.setup()``: the site's settings on the embedded default (SQLite, the
    in-memory channel layer, eager tasks; DATABASE_URL and REDIS_URL ignored), DEBUG off as in
    production, for Django's test client, in a temporary folder removed at exit. Returns
    the folder."""
    os.environ["DJANGO_SETTINGS_MODULE"] = "ginsite.settings"
    os.environ["DEBUG"] = "0"
    os.environ["CELERY_TASK_ALWAYS_EAGER"] = "1"
    os.environ.setdefault("SECRET_KEY", "bench-" + secrets.token_urlsafe(60))
    os.environ["SECURE_SSL_REDIRECT"] = "0"
    os.environ.setdefault("ALLOWED_HOSTS", "testserver")
    for name in ("DATABASE_URL", "REDIS_URL"):
        os.environ.pop(name, None)
    var = tempfile.mkdtemp(prefix=prefix)
    os.environ["GINSITE_VAR_DIR"] = var
    atexit.register(shutil.rmtree, var, ignore_errors=True)
    return var


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def wait_ready(port: int, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.close()
            return
        except OSError:
            await asyncio.sleep(0.2)
    raise RuntimeError(f"daphne on port {port} did not start")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (Linux /proc)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
