"""Run a server process of ``ws_load`` with counters: ``python bench/counted.py daphne ...``
or ``python bench/counted.py celery ...``.

Counts the SQL statements the process executes (every ``cursor.execute`` through Django's
connections, raw or ORM; the transactions' BEGIN/COMMIT are not statements here) and the
channel-layer calls it makes (``send`` and ``group_send``: a group send is one call however
many sockets it reaches), and writes them every 0.2 s to ``$WSLOAD_COUNTS/<pid>.json`` for
the benchmark to read at the start and the end of its measured period. The counting is a
few hundred nanoseconds a statement; the process is otherwise the ordinary one.

``WSLOAD_GC`` tries other garbage-collector settings than ``ginsite.runtime.settle_gc``'s
(start-up objects frozen, young collections every 10,000 allocations): ``default`` leaves
Python's (no freeze, thresholds 700/10/10), ``freeze`` freezes without changing thresholds,
``N,N,N`` freezes and sets those thresholds.
"""
from __future__ import annotations

import json
import os
import sys
import threading
import time
from pathlib import Path

COUNTS = {"sql": 0, "layer": 0}


def _count_sql(execute, sql, params, many, context):
    COUNTS["sql"] += 1
    return execute(sql, params, many, context)


def _install() -> None:
    from django.db.backends.signals import connection_created

    def created(sender, connection, **kwargs):
        if _count_sql not in connection.execute_wrappers:
            connection.execute_wrappers.append(_count_sql)

    connection_created.connect(created, weak=False)
    layers = []
    try:
        from channels.layers import InMemoryChannelLayer
        layers.append(InMemoryChannelLayer)
        from ginsite.relay import RelayChannelLayer  # its own group_send (one copy a group)
        layers.append(RelayChannelLayer)
    except ImportError:
        pass
    try:
        from channels_redis.core import RedisChannelLayer
        from channels_redis.pubsub import RedisPubSubLoopLayer  # the pub/sub layer's per loop
        layers += [RedisChannelLayer, RedisPubSubLoopLayer]
    except ImportError:
        pass
    for cls in layers:
        for name in ("send", "group_send"):
            original = cls.__dict__.get(name)
            if original is None:
                continue

            async def counted(self, *args, _original=original, **kwargs):
                COUNTS["layer"] += 1
                return await _original(self, *args, **kwargs)

            setattr(cls, name, counted)


def _gc_choice(choice: str) -> None:
    import gc

    from ginsite import runtime

    def settle() -> None:
        if choice == "default":
            return
        gc.collect()
        gc.freeze()
        if choice != "freeze":
            gc.set_threshold(*(int(n) for n in choice.split(",")))

    runtime.settle_gc = settle


def _report(folder: Path) -> None:
    path = folder / f"{os.getpid()}.json"
    while True:
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(COUNTS))
        tmp.replace(path)
        time.sleep(0.2)


def main() -> None:
    folder = Path(os.environ["WSLOAD_COUNTS"])
    _install()
    if os.environ.get("WSLOAD_GC"):
        _gc_choice(os.environ["WSLOAD_GC"])
    threading.Thread(target=_report, args=(folder,), daemon=True).start()
    program, sys.argv = sys.argv[1], sys.argv[1:]
    if program == "daphne":
        from daphne.cli import CommandLineInterface

        CommandLineInterface.entrypoint()
    elif program == "celery":
        from celery.__main__ import main as celery_main

        sys.exit(celery_main())
    else:
        raise SystemExit(f"counted.py: unknown program {program!r}")


if __name__ == "__main__":
    # The project's root, not bench/, is where imports start (as with ``python -m``).
    sys.path[0] = str(Path(__file__).resolve().parent.parent)
    main()
