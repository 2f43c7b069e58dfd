"""What ``bench/ws_load.py`` reads to say what a move costs: the servers' SQL statements and
channel-layer calls (written by ``bench/counted.py``), the PostgreSQL backends of the run's
database, and the CPU time of each group of processes from ``/proc``.
"""
from __future__ import annotations

import json
import os
from pathlib import Path


def counts(folder: str | None) -> dict[str, int]:
    """SQL statements and channel-layer calls made so far by the servers and the worker
    (``bench/counted.py`` writes each process's counters to ``folder``)."""
    total = {"sql": 0, "layer": 0}
    for path in Path(folder).glob("*.json") if folder else ():
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        for key in total:
            total[key] += data.get(key, 0)
    return total


def backend_pids() -> list[int]:
    """The PostgreSQL backends serving the benchmark's database (the servers' pooled
    connections, the worker's, the bench's own): the other databases of a shared server
    are not this run's cost. Empty on SQLite."""
    from django.db import connection

    if connection.vendor != "postgresql":
        return []
    with connection.cursor() as cursor:
        cursor.execute("SELECT pid FROM pg_stat_activity WHERE datname = current_database()")
        pids = [row[0] for row in cursor.fetchall()]
    connection.close()
    return pids


def cpu_seconds(pids: dict[str, list[int]]) -> dict[str, float]:
    """CPU time (user + system) used so far by each named group of processes; the group
    ``redis`` (when the run uses Redis) is every redis-server process on the machine (a
    shared Redis also counts what others do with it: run on a quiet machine). ``daphne
    (system)`` is the servers' kernel time alone (socket writes, thread wake-ups), a part of
    ``daphne``."""
    tick = os.sysconf("SC_CLK_TCK")
    groups = {name: list(p) for name, p in pids.items()}
    if os.environ.get("REDIS_URL"):
        groups["redis"] = []
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    comm = Path(f"/proc/{entry}/comm").read_text().strip()
                except OSError:
                    continue
                if comm == "redis-server":
                    groups["redis"].append(int(entry))
    used = {}
    for name, members in groups.items():
        total = system = 0.0
        for pid in members:
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            total += (int(fields[11]) + int(fields[12])) / tick
            system += int(fields[12]) / tick
        used[name] = total
        if name == "daphne":
            used["daphne (system)"] = system
    return used
