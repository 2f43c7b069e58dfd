"""Health probes for /healthz: each returns None when its service answers, else a reason.

Daphne answers ``/healthz`` here, before Django (``HealthEndpoint``): no middleware, no
request signals, nothing that waits on the process's shared sync thread, its thread pool or
its database connection pool, which an outage under play traffic fills. The probes run at
the same time and the whole answer takes at most ``TIMEOUT`` seconds whatever is down (a
probe that has not answered by then reports ``timeout``), and each reports only its own
dependency:

- ``database``: a connection of its own (never a pooled one) on PostgreSQL, opened on the
  event loop with a short timeout; on SQLite a query in a thread of its own;
- ``cache`` and ``broker``: each in a thread of its own; a poll that comes while the
  previous probe of the same service is still running waits for that one instead of
  starting another, so a hung service never piles up threads or delays the others;
- ``channel_layer``: on Redis, a PING on a connection of its own to each of the layer's
  servers (a round trip through the layer's shared connection can queue behind play's
  frames and gave false failures under load); otherwise a message sent to a new channel of
  the layer and received back;
- ``worker`` (advisory): the age of the sweep's heartbeat, read on the database probe's
  connection (``unknown`` while the database does not answer).
"""
from __future__ import annotations

import asyncio
import json
import uuid
from concurrent.futures import Future, ThreadPoolExecutor

from django.conf import settings
from django.core.cache import cache
from django.db import close_old_connections, connection
from django.utils import timezone

TIMEOUT = 0.8
# The worker is "not heard from" when the sweep it runs every 2 s is older than this.
WORKER_SILENCE = 30
REDIS_LAYERS = ("channels_redis.core.RedisChannelLayer",
                "channels_redis.pubsub.RedisPubSubChannelLayer")


def _postgresql() -> bool:
    return settings.DATABASES["default"]["ENGINE"].endswith("postgresql")


def _pg_params() -> dict:
    """The database settings as psycopg connection parameters, without the pool."""
    db = settings.DATABASES["default"]
    options = {k: v for k, v in db.get("OPTIONS", {}).items()
               if k not in ("pool", "isolation_level", "server_side_binding", "assume_role",
                            "connect_timeout")}
    params = {"dbname": db.get("NAME") or "postgres", **options}
    for key, name in (("USER", "user"), ("PASSWORD", "password"), ("HOST", "host"),
                      ("PORT", "port")):
        if db.get(key):
            params[name] = str(db[key])
    return params


async def _pg_probe() -> object:
    """``SELECT 1`` and the sweep's heartbeat on a fresh connection of the probe's own."""
    import psycopg

    from games.models import Heartbeat

    conn = await psycopg.AsyncConnection.connect(**_pg_params(), connect_timeout=2,
                                                 autocommit=True)
    try:
        cursor = await conn.execute(
            f'SELECT at FROM "{Heartbeat._meta.db_table}" WHERE name = %s', ["sweep"])
        row = await cursor.fetchone()
    finally:
        await conn.close()
    return row[0] if row else None


def _sqlite_probe() -> object:
    from games.models import Heartbeat

    close_old_connections()
    try:
        return Heartbeat.objects.filter(name="sweep").values_list("at", flat=True).first()
    finally:
        connection.close()


def worker_verdict(at) -> str | None:
    """The worker's state from the time of the last sweep (None: it never ran)."""
    if at is None:
        return "no worker has run the sweep yet"
    silence = max(0.0, (timezone.now() - at).total_seconds())
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


def check_broker() -> str | None:
    """Open a fresh connection to the configured Celery broker and declare a queue."""
    from kombu import Connection

    conn = Connection(
        settings.CELERY_BROKER_URL,
        transport_options=getattr(settings, "CELERY_BROKER_TRANSPORT_OPTIONS", {}),
        connect_timeout=TIMEOUT,
    )
    try:
        conn.ensure_connection(max_retries=1, interval_start=0, interval_step=0,
                               timeout=TIMEOUT)
        # A real round trip: declaring a queue fails when the broker does not answer.
        conn.default_channel.queue_declare(queue="healthz", durable=False, auto_delete=True)
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"
    finally:
        conn.release()
    return None


async def check_channel_layer() -> str | None:
    layer_settings = settings.CHANNEL_LAYERS["default"]
    if layer_settings["BACKEND"] in REDIS_LAYERS:
        import redis.asyncio as aioredis

        for host in layer_settings.get("CONFIG", {}).get("hosts", []):
            address = host["address"] if isinstance(host, dict) else host
            client = aioredis.Redis.from_url(address, socket_connect_timeout=TIMEOUT,
                                             socket_timeout=TIMEOUT)
            try:
                await client.ping()
            finally:
                await client.aclose()
        return None
    from channels.layers import get_channel_layer

    layer = get_channel_layer()
    if layer is None:
        return "no channel layer configured"
    channel = await layer.new_channel("healthz.")
    await layer.send(channel, {"type": "healthz.ping"})
    message = await layer.receive(channel)
    return None if message.get("type") == "healthz.ping" else "unexpected message"


class _Threaded:
    """A blocking probe in a thread of its own; at most one run at a time, shared by the
    polls that come meanwhile."""

    def __init__(self, name: str, probe):
        self.probe = probe
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"healthz-{name}")
        self.running: Future | None = None

    def __call__(self) -> asyncio.Future:
        if self.running is None or self.running.done():
            self.running = self.executor.submit(self.probe)
        return asyncio.shield(asyncio.wrap_future(self.running))


_cache_probe = _Threaded("cache", check_cache)
_broker_probe = _Threaded("broker", check_broker)
_sqlite = _Threaded("database", _sqlite_probe)

# Checks whose failure makes this process unable to serve play (503 for a load balancer).
REQUIRED = ("database", "cache", "channel_layer", "broker")
# Reported, but a web process still serves without it (200, status "degraded").
ADVISORY = ("worker",)


async def _bounded(awaitable) -> tuple[str | None, object]:
    """(error, value) of a probe, the error ``timeout`` after ``TIMEOUT`` seconds."""
    try:
        return None, await asyncio.wait_for(awaitable, TIMEOUT)
    except TimeoutError:
        return f"timeout: no answer within {TIMEOUT} s", None
    except Exception as exc:  # any driver error means "not answering"
        return f"{type(exc).__name__}: {exc}", None


async def run_checks() -> dict[str, str | None]:
    """Every check at once, the whole within ``TIMEOUT`` seconds."""
    database = _pg_probe() if _postgresql() else _sqlite()
    (db_error, sweep_at), cache_, layer, broker = await asyncio.gather(
        _bounded(database), _bounded(_cache_probe()), _bounded(check_channel_layer()),
        _bounded(_broker_probe()),
    )
    return {
        "database": db_error,
        "cache": cache_[0] or cache_[1],
        "channel_layer": layer[0] or layer[1],
        "broker": broker[0] or broker[1],
        "worker": ("unknown: the database does not answer" if db_error
                   else worker_verdict(sweep_at)),
    }


def describe_backends() -> dict[str, str]:
    return {
        "database": settings.DATABASES["default"]["ENGINE"].rsplit(".", 1)[-1],
        "cache": settings.CACHES["default"]["BACKEND"].rsplit(".", 1)[-1],
        "channel_layer": settings.CHANNEL_LAYERS["default"]["BACKEND"].rsplit(".", 1)[-1],
        "broker": settings.CELERY_BROKER_URL.split("://", 1)[0],
        "worker": "celery",
    }


async def report() -> tuple[int, dict]:
    """(HTTP status, body) of ``/healthz``: 503 when a service this process needs does not
    answer (database, cache, channel layer, broker); a worker not heard from is reported
    (status ``degraded``) with 200, since this process still serves."""
    results = await run_checks()
    backends = describe_backends()
    failed = sorted(name for name, error in results.items() if error)
    required = [name for name in failed if name in REQUIRED]
    status = "unavailable" if required else ("degraded" if failed else "ok")
    checks = {}
    for name, error in results.items():
        checks[name] = {"ok": error is None, "backend": backends[name]}
        if error:
            checks[name]["error"] = error
    body = {"status": status, "failed": failed, "checks": checks}
    return (503 if required else 200), body


# The status page's words for each check (``/status/``: the footer's "Service status").
CHECK_NAMES = {
    "database": "Database (accounts, games, records)",
    "cache": "Cache (presence, limits)",
    "channel_layer": "Live play (moves, chat and notices as they happen)",
    "broker": "Task queue (computer moves, timers, ratings)",
    "worker": "Background worker (turn timers, statistics, tournaments)",
}
STATUS_WORDS = {
    "ok": "Everything is working.",
    "degraded": "The site is up, but background work may be late: timers, computer moves "
                "or statistics can lag.",
    "unavailable": "The site is having trouble: some pages or moves may fail. It is being "
                   "looked at; please try again in a few minutes.",
}


def status_page(body: dict) -> str:
    """``/status/``: the health report in words, for people (``/healthz`` is the JSON for
    monitors). A page of its own, served before Django like ``/healthz``: it must show while
    the database is down, so it reads no session and no user."""
    from html import escape

    from django.templatetags.static import static

    rows = []
    for name, check in body["checks"].items():
        state = "working" if check["ok"] else escape(str(check.get("error", "not answering")))
        rows.append(f'<tr><th scope="row">{escape(CHECK_NAMES.get(name, name))}</th>'
                    f'<td class="{"status-ok" if check["ok"] else "status-down"}">{state}</td>'
                    "</tr>")
    checked = timezone.now().strftime("%Y-%m-%d %H:%M:%S UTC")
    return (
        '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        "<title>Service status · Gin Rummy</title>\n"
        f'<link rel="stylesheet" href="{escape(static("css/site.css"))}">\n'
        '</head>\n<body class="page-status">\n<main id="main" class="container">\n'
        "<h1>Service status</h1>\n"
        f'<p class="status-summary status-{escape(body["status"])}">'
        f'{escape(STATUS_WORDS.get(body["status"], body["status"]))}</p>\n'
        '<div class="table-scroll"><table class="status-table">\n<tbody>\n'
        + "\n".join(rows) +
        f'\n</tbody>\n</table></div>\n<p class="muted">Checked {checked}. '
        '<a href="/">Back to the site</a> · <a href="/healthz">JSON for monitors</a></p>\n'
        "</main>\n</body>\n</html>\n")


class HealthEndpoint:
    """ASGI: ``GET``/``HEAD /healthz`` (JSON, ``report``) and ``/status/`` (its page,
    ``status_page``) answered here; everything else goes to ``app``."""

    PATHS = ("/healthz", "/status/")

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if (scope["type"] != "http" or scope["path"] not in self.PATHS
                or scope["method"] not in ("GET", "HEAD")):
            return await self.app(scope, receive, send)
        status, body = await report()
        page = scope["path"] == "/status/"
        data = (status_page(body) if page else json.dumps(body)).encode()
        await send({"type": "http.response.start", "status": status, "headers": [
            (b"content-type", b"text/html; charset=utf-8" if page else b"application/json"),
            (b"content-length", str(len(data)).encode()),
            (b"cache-control", b"max-age=0, no-cache, no-store, must-revalidate, private"),
        ]})
        await send({"type": "http.response.body",
                    "body": b"" if scope["method"] == "HEAD" else data})
