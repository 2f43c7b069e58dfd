"""The services the site talks to, from the environment: the database, the cache, the
channel layer and the Celery broker (and Celery's own settings, the periodic jobs).

With nothing set: SQLite in ``var/``, a local-memory cache, the relay channel layer and a
filesystem broker; ``DATABASE_URL`` switches to PostgreSQL, ``REDIS_URL`` to Redis
(docs/operations.md).
"""
import os

import dj_database_url

from ginsite.localfiles import broker_folders, var_dir

from .env import env_bool

VAR_DIR = var_dir()

# --- Database -------------------------------------------------------------------------
DATABASE_URL = os.environ.get("DATABASE_URL", "")
if DATABASE_URL:
    # Daphne runs each request's sync code in a fresh thread, so persistent connections pile
    # up (one per thread) until PostgreSQL refuses clients: Django's docs say to disable them
    # under ASGI. DB_CONN_MAX_AGE re-enables them for WSGI/Celery-only deployments.
    DATABASES = {
        "default": dj_database_url.parse(
            DATABASE_URL, conn_max_age=int(os.environ.get("DB_CONN_MAX_AGE", "0"))
        )
    }
    # DB_POOL=<max connections per process> turns on psycopg's connection pool instead
    # (recommended behind Daphne: no connect/disconnect per request).
    if os.environ.get("DB_POOL"):
        DATABASES["default"]["CONN_MAX_AGE"] = 0
        # A pooled connection is tested before it is handed out, so connections that died
        # with a database restart are discarded instead of failing a request. (Django gives
        # the pool its ``check`` from this setting; a ``check`` in the pool options too is a
        # TypeError on every connection.)
        DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
        # A request waits at most 3 s for a connection, so a move refused because the
        # database is down is answered within the connect timeout. A connection that cannot
        # be made is retried for 2 s, then given up: the next request tries at once. (With
        # psycopg's default of 5 minutes of retries doubling their delay, the pool came back
        # up to 16 s after a 15 s PostgreSQL outage ended.)
        DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
            "min_size": 2, "max_size": int(os.environ["DB_POOL"]), "timeout": 3,
            "reconnect_timeout": 2,
        }
    # Connecting to a database that is down fails after 3 s instead of hanging.
    DATABASES["default"].setdefault("OPTIONS", {}).setdefault("connect_timeout", 3)
else:
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": os.environ.get("SQLITE_PATH", str(VAR_DIR / "db.sqlite3")),
            "OPTIONS": {
                # WAL lets the web server and the Celery worker read while one writes.
                "init_command": "PRAGMA journal_mode=WAL;PRAGMA synchronous=NORMAL;",
                "transaction_mode": "IMMEDIATE",
                "timeout": 20,
            },
        }
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Redis: cache, channel layer, Celery broker -----------------------------------------
REDIS_URL = os.environ.get("REDIS_URL", "")
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": os.environ.get("CACHE_KEY_PREFIX", "ginsite"),
            # Fail fast when Redis is down (rate limits, presence, health), never hang.
            "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 2},
        }
    }
    # A connection that does not answer within a second counts as down (not a hang).
    # CHANNEL_REDIS_URLS (comma-separated) spreads the channel layer over several Redis
    # servers: each group and each socket's channel lives on one of them, by a hash of its
    # name (the same list, in the same order, on every process). Default: REDIS_URL alone.
    # docs/operations.md, "Capacity plan", says when one Redis is not enough.
    _layer_urls = [u.strip() for u in os.environ.get("CHANNEL_REDIS_URLS", "").split(",")
                   if u.strip()] or [REDIS_URL]
    _redis_hosts = [{"address": u, "socket_connect_timeout": 1} for u in _layer_urls]
    # Redis pub/sub by default: a group_send is one PUBLISH and receiving costs no round trip
    # per message. The list-based layer (CHANNEL_LAYER=list) receives one message per round
    # trip; under load it fell behind and dropped frames (docs/operations.md, "Measured
    # figures"). Delivery is
    # at most once either way: table frames are versioned and a gap asks for a snapshot.
    if os.environ.get("CHANNEL_LAYER", "pubsub") == "list":
        CHANNEL_LAYERS = {
            "default": {
                "BACKEND": "channels_redis.core.RedisChannelLayer",
                "CONFIG": {
                    "hosts": _redis_hosts,
                    "capacity": 500,
                    "expiry": 30,
                    "prefix": os.environ.get("CHANNEL_PREFIX", "asgi"),
                },
            }
        }
    else:
        CHANNEL_LAYERS = {
            "default": {
                # channels_redis's pub/sub layer, each message decoded once per process.
                "BACKEND": "ginsite.layers.SharedPubSubChannelLayer",
                "CONFIG": {
                    "hosts": _redis_hosts,
                    "prefix": os.environ.get("CHANNEL_PREFIX", "asgi"),
                },
            }
        }
    CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", REDIS_URL)
    # A task held by a worker that was killed is given to another after this many seconds
    # (tasks are idempotent; a computer whose move is lost is also caught by its turn
    # deadline in the sweep, within ~10 s).
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "visibility_timeout": int(os.environ.get("CELERY_VISIBILITY_TIMEOUT", "30")),
    }
else:
    if env_bool("GINSITE_SHARED_CACHE", False):
        # The run command's processes (Daphne, the Celery worker with beat, the analysis
        # worker) share one cache in files: what one writes the others read. A local-memory
        # cache per process lost what the worker wrote (a finished game's "playing" mark was
        # cleared in the worker's memory, so contacts saw "Playing" for six hours; a
        # tournament's matches were marked only there; the presence sweep saw no sockets).
        CACHES = {
            "default": {
                "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
                "LOCATION": str(VAR_DIR / "cache"),
                # (past this many files a third are dropped: rate-limit windows pile up)
                "OPTIONS": {"MAX_ENTRIES": 20000},
            }
        }
    else:  # one process (tests, manage.py commands): its own memory
        CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    # In-memory in the web process; the worker's frames are relayed to it over HTTP
    # (GINSITE_RELAY_URL, set by scripts/run.sh): see ginsite/relay.py.
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "ginsite.relay.RelayChannelLayer",
            "CONFIG": {"relay_url": os.environ.get("GINSITE_RELAY_URL", "")},
        }
    }
    _broker = broker_folders()
    CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "filesystem://")
    if CELERY_BROKER_URL == "filesystem://":
        # kombu's filesystem transport with atomic writes (ginsite/broker.py).
        CELERY_BROKER_TRANSPORT = "ginsite.broker:Transport"
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(_broker["queue"]),
        "data_folder_out": str(_broker["queue"]),
        "processed_folder": str(_broker["processed"]),
        "control_folder": str(_broker["control"]),
        "store_processed": False,
        # How often an idle worker looks at the queue folder (kombu's default is 1 s): every
        # computer move is a task, so with 1 s each one waited up to a second after its
        # think pause (the run command's games showed moves exactly 1.0 s apart).
        "polling_interval": float(os.environ.get("CELERY_POLLING_INTERVAL", "0.1")),
    }

CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", False)
# The queue tasks go to and workers read (several sites, or test runs, may share one Redis).
CELERY_TASK_DEFAULT_QUEUE = os.environ.get("CELERY_QUEUE", "celery")
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ACKS_LATE = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# How long the worker's ETA timer may sleep before it looks again (Celery's default is 1 s):
# a computer's move is a task with a countdown (its pause), and one queued while that timer
# slept waited for it to wake. The embedded default's worker (no event loop on the filesystem
# broker) played the moves after a computer's draw about 1 s later whatever their pause, an
# outside audit (bench/broker_pickup.py --countdown 0.5).
CELERY_WORKER_TIMER_PRECISION = float(os.environ.get("CELERY_WORKER_TIMER_PRECISION", "0.1"))
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_CONNECTION_TIMEOUT = 3
CELERY_TIMEZONE = "UTC"
CELERY_BEAT_SCHEDULE_FILENAME = str(VAR_DIR / "celerybeat-schedule")
# Periodic jobs are declared in code so every deployment gets the same ones.
CELERY_BEAT_SCHEDULE: dict = {
    "clear-expired-sessions": {
        "task": "accounts.clear_expired_sessions",
        "schedule": 6 * 3600,
    },
    # Presence of users whose notification sockets lapsed without a disconnect.
    "social-presence-sweep": {
        "task": "social.presence_sweep",
        "schedule": 60.0,
    },
    # Challenges to and from bots left unanswered past SOCIAL_CHALLENGE_TTL: both sides told.
    "social-challenges-expire": {
        "task": "social.challenges_expire",
        "schedule": 60.0,
    },
    # Turn deadlines of tables nobody is connected to (connected players' sockets apply their
    # own on time) or missed across a restart, presence after the grace, stale open tables.
    "games-sweep": {
        "task": "games.sweep",
        "schedule": 2.0,
    },
    # Tournaments: due starts, no-shows, arena waves and ends, scheduled editions.
    "tournaments-sweep": {
        "task": "tournaments.sweep",
        "schedule": 5.0,
    },
    # Leaderboard snapshots of every mode (the page says when they were computed), and rating
    # of any finished game whose rating task was lost.
    "leaderboards-compute": {
        "task": "leaderboards.compute",
        "schedule": 300.0,
    },
    "leaderboards-catch-up": {
        "task": "leaderboards.catch_up",
        "schedule": 60.0,
    },
}
