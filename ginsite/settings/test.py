"""Settings for the test suite: the base settings (embedded or real services, from the
environment) with fast password hashing, emails kept in memory and eager Celery tasks.
Tests that prove the worker path override ``CELERY_TASK_ALWAYS_EAGER`` themselves."""
import importlib
import os

os.environ.setdefault("DEBUG", "1")

from . import base  # noqa: E402

# The package's __init__ imported base before DEBUG was set above: read it again with it.
importlib.reload(base)

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
