"""Health probes for /healthz: each returns None when the service answers, else a reason."""
from __future__ import annotations

import uuid

from asgiref.sync import async_to_sync
from django.conf import settings
from django.core.cache import cache
from django.db import connection


def check_database() -> str | None:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:  # any driver error means "not answering"
        return f"{type(exc).__name__}: {exc}"
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


def check_channel_layer() -> str | None:
    from channels.layers import get_channel_layer

    layer = get_channel_layer()
    if layer is None:
        return "no channel layer configured"

    async def roundtrip():
        channel = await layer.new_channel("healthz.")
        await layer.send(channel, {"type": "healthz.ping"})
        return await layer.receive(channel)

    try:
        message = async_to_sync(roundtrip)()
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


CHECKS = {
    "database": check_database,
    "cache": check_cache,
    "channel_layer": check_channel_layer,
    "broker": check_broker,
}


def run_checks() -> dict[str, str | None]:
    return {name: check() for name, check in CHECKS.items()}


def describe_backends() -> dict[str, str]:
    return {
        "database": settings.DATABASES["default"]["ENGINE"].rsplit(".", 1)[-1],
        "cache": settings.CACHES["default"]["BACKEND"].rsplit(".", 1)[-1],
        "channel_layer": settings.CHANNEL_LAYERS["default"]["BACKEND"].rsplit(".", 1)[-1],
        "broker": settings.CELERY_BROKER_URL.split("://", 1)[0],
    }
