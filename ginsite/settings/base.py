"""Settings for every environment, driven by environment variables.

With nothing set the site runs embedded: SQLite in ``var/``, the in-memory channel layer,
a local-memory cache and a filesystem Celery broker. ``DATABASE_URL`` switches to
PostgreSQL, ``REDIS_URL`` to Redis for the channel layer, the Celery broker and the cache.
See docs/operations.md.
"""
import os
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from ginsite.localfiles import BASE_DIR, broker_folders, static_root, stored_secret_key, var_dir

# Reading the settings changes nothing on disk: the entry points call
# ``ginsite.localfiles.prepare()`` first, which makes these folders and the generated key.
VAR_DIR = var_dir()


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: list[str]) -> list[str]:
    value = os.environ.get(name)
    if not value:
        return default
    return [item.strip() for item in value.split(",") if item.strip()]


DEFAULT_SECRET_KEY = "insecure-dev-key-change-me-in-production"
# The site runs as in production unless DEBUG=1 asks for development (debug pages, static
# files straight from static/ without collectstatic).
DEBUG = env_bool("DEBUG", False)


# Empty only when no entry point ran ``prepare()``: Django then refuses to sign anything.
SECRET_KEY = os.environ.get("SECRET_KEY") or stored_secret_key()
if not DEBUG and SECRET_KEY and (SECRET_KEY == DEFAULT_SECRET_KEY or len(SECRET_KEY) < 50):
    raise ImproperlyConfigured(
        "DEBUG is off but SECRET_KEY is the default or too short: set SECRET_KEY "
        "to a random string of at least 50 characters (or leave it unset to use the "
        "one generated in var/secret_key by manage.py, Daphne or the Celery worker)."
    )

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]", "testserver"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "ginsite.apps.GinStaticFilesConfig",  # django.contrib.staticfiles
    "django.contrib.humanize",
    "django.contrib.sites",
    "channels",
    "allauth",
    "allauth.account",
    "accounts",
    "games",
    "social",
    "leaderboards",
    "leaderboards.tournaments",
    "leaderboards.stats",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "allauth.account.middleware.AccountMiddleware",
    "csp.middleware.CSPMiddleware",
]

ROOT_URLCONF = "ginsite.urls"
WSGI_APPLICATION = "ginsite.wsgi.application"
ASGI_APPLICATION = "ginsite.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "social.context_processors.unread",
            ],
        },
    },
]

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
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(_broker["queue"]),
        "data_folder_out": str(_broker["queue"]),
        "processed_folder": str(_broker["processed"]),
        "control_folder": str(_broker["control"]),
        "store_processed": False,
    }

CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", False)
# The queue tasks go to and workers read (several sites, or test runs, may share one Redis).
CELERY_TASK_DEFAULT_QUEUE = os.environ.get("CELERY_QUEUE", "celery")
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ACKS_LATE = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
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

# --- Live play: the GAMES_* settings and their defaults are in games/conf.py

# --- Social: private messages per sender per minute (other SOCIAL_* defaults: social/conf.py)
SOCIAL_MESSAGE_RATE = int(os.environ.get("SOCIAL_MESSAGE_RATE", "10"))

# --- Auth and accounts (django-allauth) -------------------------------------------------
AUTH_USER_MODEL = "accounts.User"
AUTHENTICATION_BACKENDS = [
    "django.contrib.auth.backends.ModelBackend",
    "allauth.account.auth_backends.AuthenticationBackend",
]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
SITE_ID = 1
LOGIN_URL = "account_login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"
ACCOUNT_LOGIN_METHODS = {"username", "email"}
ACCOUNT_SIGNUP_FIELDS = ["username*", "email*", "password1*", "password2*"]
ACCOUNT_EMAIL_VERIFICATION = "mandatory"
ACCOUNT_CONFIRM_EMAIL_ON_GET = False
ACCOUNT_LOGIN_ON_EMAIL_CONFIRMATION = True
ACCOUNT_UNIQUE_EMAIL = True
ACCOUNT_CHANGE_EMAIL = True
ACCOUNT_LOGOUT_ON_PASSWORD_CHANGE = False
ACCOUNT_USERNAME_MIN_LENGTH = 3
# Answers a login brute force with HTTP 429 and names the site in emails.
ACCOUNT_ADAPTER = "accounts.adapter.AccountAdapter"
ACCOUNT_RATE_LIMITS = {
    "login_failed": "10/m/ip,5/5m/key",
    "signup": "20/m/ip",
    "reset_password": "20/m/ip,5/m/key",
    "change_password": "5/m/user",
    "confirm_email": "1/3m/key",
}

# --- Email --------------------------------------------------------------------------------
# Printed on the console with its links framed (accounts/mail.py) unless a backend is given.
EMAIL_BACKEND = os.environ.get("EMAIL_BACKEND", "accounts.mail.ConsoleEmailBackend")
EMAIL_FILE_PATH = os.environ.get("EMAIL_FILE_PATH", str(VAR_DIR / "emails"))
EMAIL_HOST = os.environ.get("EMAIL_HOST", "localhost")
EMAIL_PORT = int(os.environ.get("EMAIL_PORT", "25"))
EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", False)
EMAIL_USE_SSL = env_bool("EMAIL_USE_SSL", False)
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "Gin Rummy <noreply@localhost>")
SERVER_EMAIL = DEFAULT_FROM_EMAIL

# --- Internationalisation -----------------------------------------------------------------
LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

# --- Static and media files ---------------------------------------------------------------
STATIC_URL = "/static/"
# generated/static: files built from the source by manage.py commands (the offline game's
# engine package, build_offline_engine), git-ignored and collected like static/.
OFFLINE_GENERATED_STATIC = BASE_DIR / "generated" / "static"
STATICFILES_DIRS = [BASE_DIR / "static", OFFLINE_GENERATED_STATIC]
STATIC_ROOT = static_root()
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            # hashed names (also inside JS module imports), gzip and brotli copies: needs
            # collectstatic (scripts/setup.sh runs it)
            else "ginsite.storage.StaticStorage"
        )
    },
}
WHITENOISE_USE_FINDERS = DEBUG
# Pyodide's 10 MB WebAssembly is sent as it is: brotli at collectstatic time took over a
# minute here (docs/offline.md has the figures); the offline game's one-time download stays
# under its 15 MB goal without it.
WHITENOISE_SKIP_COMPRESS_EXTENSIONS = (
    "jpg", "jpeg", "png", "gif", "webp", "zip", "gz", "tgz", "bz2", "tbz", "xz", "br", "swf",
    "flv", "woff", "woff2", "3gp", "3gpp", "asf", "avi", "m4v", "mov", "mp4", "mpeg", "mpg",
    "webm", "wmv", "wasm",
)
# Hashed files are cached for ten years (WhiteNoise marks them immutable); others a minute.
WHITENOISE_MAX_AGE = 0 if DEBUG else 60
MEDIA_URL = "/media/"
MEDIA_ROOT = Path(os.environ.get("MEDIA_ROOT", VAR_DIR / "media"))
FILE_UPLOAD_MAX_MEMORY_SIZE = 2_621_440
DATA_UPLOAD_MAX_MEMORY_SIZE = 2_621_440

# --- Security -----------------------------------------------------------------------------
SESSION_COOKIE_HTTPONLY = True
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
# HTTPS=1 when the site is served over TLS (behind a proxy that sets X-Forwarded-Proto):
# redirect to https, secure cookies, HSTS. Off by default so that the run command works on
# plain http://127.0.0.1:8000 with DEBUG off.
HTTPS = env_bool("HTTPS", False)
if HTTPS:
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
    # A load balancer's health check speaks plain http to each process: a 301 would fail it.
    SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", "31536000"))
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True

# Everything is served from our own origin: no CDN anywhere.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "img-src": ["'self'", "data:"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "connect-src": ["'self'", "ws:", "wss:"],
        "font-src": ["'self'"],
        "frame-ancestors": ["'none'"],
        "form-action": ["'self'"],
    }
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    # The periodic tasks (the games sweep every 2 s...) log only runs that did something.
    "filters": {"quiet_periodic": {"()": "ginsite.logfilters.QuietPeriodicTasks"}},
    "loggers": {
        "django.db.backends": {"level": "WARNING"},
        **{name: {"filters": ["quiet_periodic"]}
           for name in ("celery.beat", "celery.worker.strategy", "celery.app.trace")},
    },
}
