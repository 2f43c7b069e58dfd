"""Settings for every environment, driven by environment variables.

With nothing set the site runs embedded: SQLite in ``var/``, the in-memory channel layer,
a local-memory cache and a filesystem Celery broker. ``DATABASE_URL`` switches to
PostgreSQL, ``REDIS_URL`` to Redis for the channel layer, the Celery broker and the cache.
See docs/operations.md.

This module holds the site itself (apps, middleware, templates, static files, logging); the
rest is read by concern, each module from the environment: ``backends`` (database, cache,
channel layer, Celery), ``auth`` (accounts and email), ``security`` (HTTPS, headers, the
content security policy); ``env`` has the helpers that read a variable.
"""
import os
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

from ginsite.localfiles import BASE_DIR, static_root, stored_secret_key, var_dir

from .env import env_bool, env_list, env_seconds_range

# Reading the settings changes nothing on disk: the entry points call
# ``ginsite.localfiles.prepare()`` first, which makes these folders and the generated key.
VAR_DIR = var_dir()

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
# a refused CSRF token answers a script that asks for JSON in JSON (a form gets Django's page)
CSRF_FAILURE_VIEW = "core.http.csrf_failure"

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
    "core.apps.CoreConfig",  # registers <id:...> (core/urlids.py)
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
    "core.middleware.CompressPages",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "core.middleware.RefuseNulCharacters",
    "core.middleware.ApiErrorsAsJson",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "accounts.middleware.viewer_time_zone_middleware",
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
                "ginsite.navigation.nav",
            ],
        },
    },
]

# --- Database, cache, channel layer, Celery (backends.py); accounts and email (auth.py);
# HTTPS, security headers and the content security policy (security.py)
from .auth import *  # noqa: E402,F401,F403
from .backends import *  # noqa: E402,F401,F403
from .security import *  # noqa: E402,F401,F403

# --- Live play: the GAMES_* settings and their defaults are in games/conf.py. The computer's
# "thinking" pause before each of its moves (0.6-1.5 s) may be set as "low,high" seconds
# (the browser tests' run command makes it short: a whole game waited over a minute on it).
if os.environ.get("GAMES_BOT_DELAY"):
    GAMES_BOT_DELAY = env_seconds_range("GAMES_BOT_DELAY", (0.6, 1.5))

# --- Social: private messages per sender per minute (other SOCIAL_* defaults: social/conf.py)
SOCIAL_MESSAGE_RATE = int(os.environ.get("SOCIAL_MESSAGE_RATE", "10"))

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


LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    # (a logger's filter does not see its children's records: the handler's does)
    "handlers": {"console": {"class": "logging.StreamHandler", "filters": ["one_line"]}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    # The periodic tasks (the games sweep every 2 s...) log only runs that did something.
    "filters": {"quiet_periodic": {"()": "ginsite.logfilters.QuietPeriodicTasks"},
                "one_line": {"()": "ginsite.logfilters.OneLineSecurityNotes"}},
    "loggers": {
        "django.db.backends": {"level": "WARNING"},
        **{name: {"filters": ["quiet_periodic"]}
           for name in ("celery.beat", "celery.worker.strategy", "celery.app.trace")},
    },
}
