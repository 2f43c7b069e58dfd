"""A real ``celery -A ginsite worker`` process on this test's database and broker."""
from __future__ import annotations

import os
from urllib.parse import urlsplit, urlunsplit

from django.db import connection


def worker_env(queue: str) -> dict[str, str]:
    env = dict(os.environ)
    env["DJANGO_SETTINGS_MODULE"] = "ginsite.settings"
    env["CELERY_TASK_ALWAYS_EAGER"] = "0"
    db = connection.settings_dict
    if db["ENGINE"].endswith("sqlite3"):
        env["SQLITE_PATH"] = str(db["NAME"])
    else:  # the test database, on the same server as DATABASE_URL
        parts = urlsplit(os.environ["DATABASE_URL"])
        env["DATABASE_URL"] = urlunsplit(parts._replace(path="/" + db["NAME"]))
    return env


