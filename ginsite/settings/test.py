"""Settings for the test suite: the base settings (embedded or real services, from the
environment) with fast password hashing, emails kept in memory and eager Celery tasks.
Tests that prove the worker path override ``CELERY_TASK_ALWAYS_EAGER`` themselves."""
import importlib
import os

os.environ.setdefault("DEBUG", "1")


def _one_worker_apart() -> None:
    """Under pytest-xdist (``-n``, scripts/test.sh) each worker process gets its own var
    folder (SQLite test database, filesystem broker, media), its own Redis database and
    its own cache and channel prefixes: one worker's ``cache.clear()`` (a FLUSHDB on Redis)
    or broker purge never reaches the other's tests. Written into the environment, so that
    the servers and Celery workers a test starts inherit them. PostgreSQL needs nothing:
    pytest-django gives each worker its own test database (``test_<name>_gw0``)."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    if not worker or os.environ.get("GINSITE_TEST_WORKER") == worker:
        return
    from urllib.parse import urlsplit, urlunsplit

    from ginsite.localfiles import var_dir

    n = int(worker.removeprefix("gw"))
    os.environ["GINSITE_TEST_WORKER"] = worker
    os.environ["GINSITE_VAR_DIR"] = str(var_dir() / f"test-{worker}")
    if redis_url := os.environ.get("REDIS_URL"):
        parts = urlsplit(redis_url)
        db = int(parts.path.strip("/") or 0) + n
        if db > 15:  # (a Redis server has 16 databases unless configured otherwise)
            raise RuntimeError(
                f"test worker {worker} would use Redis database {db} of {redis_url}: run "
                "fewer workers (TEST_WORKERS) or start from a lower database")
        os.environ["REDIS_URL"] = urlunsplit(parts._replace(path=f"/{db}"))
    for name, default in (("CACHE_KEY_PREFIX", "ginsite"), ("CHANNEL_PREFIX", "asgi")):
        os.environ[name] = f"{os.environ.get(name, default)}-{worker}"


_one_worker_apart()

from . import auth, backends, base, security  # noqa: E402

# The package's __init__ imported base before DEBUG was set above (and before a test
# worker's folders were chosen): read its parts and it again with them.
for _part in (auth, backends, security, base):
    importlib.reload(_part)

from .base import *  # noqa: E402,F401,F403
from .base import DATABASE_URL, VAR_DIR  # noqa: E402

# The suite needs a key, not a secret: a fresh clone has no generated one before
# ``ginsite.localfiles.prepare()`` (tests/conftest.py) runs, after these settings are read.
SECRET_KEY = SECRET_KEY or "tests-only-" + "k" * 50  # noqa: F405
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
CELERY_TASK_ALWAYS_EAGER = True
GAMES_BOT_DELAY = (0, 0)
# No clocks heartbeat from in-process sockets: a stamp written after a test's flush would
# make the next test see an outage (tests/games/test_reliability.py turns it on).
GAMES_CLOCKS_BEAT = 0
MEDIA_ROOT = VAR_DIR / "test-media"
if not DATABASE_URL:
    # One file per test process, so that several runs on one machine never share it.
    DATABASES["default"]["TEST"] = {  # noqa: F405
        "NAME": str(VAR_DIR / f"test-db-{os.getpid()}.sqlite3")
    }
else:
    # The same PostgreSQL backend, with a flush between transactional tests that DELETEs
    # instead of TRUNCATE (tests/support/pgflush: 0.35 s less per such test).
    DATABASES["default"]["ENGINE"] = "tests.support.pgflush"  # noqa: F405
