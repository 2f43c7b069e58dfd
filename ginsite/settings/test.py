"""Settings for the test suite: the base settings (embedded or real services, from the
environment) with fast password hashing, emails kept in memory and eager Celery tasks.
Tests that prove the worker path override ``CELERY_TASK_ALWAYS_EAGER`` themselves."""
import os

os.environ.setdefault("DEBUG", "1")

from .base import *  # noqa: E402,F401,F403
from .base import DATABASE_URL, VAR_DIR  # noqa: E402

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
CELERY_TASK_ALWAYS_EAGER = True
GAMES_BOT_DELAY = (0, 0)
MEDIA_ROOT = VAR_DIR / "test-media"
if not DATABASE_URL:
    DATABASES["default"]["TEST"] = {"NAME": str(VAR_DIR / "test-db.sqlite3")}  # noqa: F405
