"""Health probes for /healthz: each returns None when the service answers, else a reason.

The probes run at the same time, in threads of their own (never the threads that serve play),
and the whole answer takes at most ``TIMEOUT`` seconds whatever is down: a probe that has not
answered by then reports ``timeout``.
"""
from __future__ import annotations

import asyncio
import uuid
from concurrent.futures import ThreadPoolExecutor

from django.conf import settings
from django.core.cache import cache
from django.db import close_old_connections, connection
from django.utils import timezone

TIMEOUT = 0.9
# The worker is "not heard from" when the sweep it runs every 2 s is older than this.
WORKER_SILENCE = 30
_executor = ThreadPoolExecutor(max_workers=6, thread_name_prefix="healthz")


def check_database() -> str | None:
    close_old_connections()
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:  # any driver error means "not answering"
        connection.close()  # a broken connection is not kept for the next probe
        return f"{type(exc).__name__}: {exc}"
    finally:
        close_old_connections()
    return None


def worker_silence() -> float | None:
    """Seconds since a Celery worker last completed the games sweep (None: never)."""
    from games.models import Heartbeat

    try:
        at = Heartbeat.objects.filter(name="sweep").values_list("at", flat=True).first()
    finally:
        connection.close()
    return None if at is None else max(0.0, (timezone.now() - at).total_seconds())


def check_worker() -> str | None:
    silence = worker_silence()
    if silence is None:
        return "no worker has run the sweep yet"
    if silence > WORKER_SILENCE:
        return f"no worker heard from for {silence:.0f} s"
    return None


def check_cache() -> str | None:
    key = f"healthz:{uuid.uuid4().hex}"
    try:
        cache.set(key, "ok", 10)
        value = cache.get(key)
        cache.delete(key)
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"
    return None if value == "ok" else "cache did not return the value it stored"


async def check_channel_layer() -> str | None:
    """A message sent to a new channel of this process's layer and received back, on the
    server's own event loop (a sync wrapper would block with the list-based Redis layer
    while sockets are open)."""
    from channels.layers import get_channel_layer

    layer = get_channel_layer()
    if layer is None:
        return "no channel layer configured"
    try:
        channel = await layer.new_channel("healthz.")
        await layer.send(channel, {"type": "healthz.ping"})
        message = await layer.receive(channel)
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"
    return None if message.get("type") == "healthz.ping" else "unexpected message"


def check_broker() -> str | None:
    """Open a fresh connection to the configured Celery broker and declare a queue."""
    from kombu import Connection

    conn = Connection(
        settings.CELERY_BROKER_URL,
        transport_options=getattr(settings, "CELERY_BROKER_TRANSPORT_OPTIONS", {}),
        connect_timeout=3,
    )
    try:
        conn.ensure_connection(max_retries=1, interval_start=0, interval_step=0, timeout=3)
        # A real round trip: declaring a queue fails when the broker does not answer.
        conn.default_channel.queue_declare(queue="healthz", durable=False, auto_delete=True)
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"
    finally:
        conn.release()
    return None


# Checks whose failure makes this process unable to serve play (503 for a load balancer).
CHECKS = {
    "database": check_database,
    "cache": check_cache,
    "channel_layer": check_channel_layer,
    "broker": check_broker,
}
# Reported, but a web process still serves without it (200, status "degraded").
ADVISORY = {"worker": check_worker}


async def _run(check) -> str | None:
    loop = asyncio.get_running_loop()
    if asyncio.iscoroutinefunction(check):
        call = check()
    else:
        call = loop.run_in_executor(_executor, check)
    try:
        return await asyncio.wait_for(call, TIMEOUT)
    except TimeoutError:
        return f"timeout: no answer within {TIMEOUT} s"
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"


async def run_checks() -> dict[str, str | None]:
    """Every check at once, the whole within ``TIMEOUT`` seconds."""
    names = [*CHECKS, *ADVISORY]
    checks = {**CHECKS, **ADVISORY}
    results = await asyncio.gather(*(_run(checks[name]) for name in names))
    return dict(zip(names, results, strict=True))


def describe_backends() -> dict[str, str]:
    return {
        "database": settings.DATABASES["default"]["ENGINE"].rsplit(".", 1)[-1],
        "cache": settings.CACHES["default"]["BACKEND"].rsplit(".", 1)[-1],
        "channel_layer": settings.CHANNEL_LAYERS["default"]["BACKEND"].rsplit(".", 1)[-1],
        "broker": settings.CELERY_BROKER_URL.split("://", 1)[0],
        "worker": "celery",
    }
