"""Logging filters of the site.

``QuietPeriodicTasks`` keeps the console of the run command readable: beat sends the games
sweep every 2 s and the tournaments sweep every 5 s, and Celery logs three INFO lines for each
run (beat's "Sending due task", the worker's "received" and "succeeded"), about 4,000 lines an
hour that bury everything else (the sign-up link the README sends people to find there). For
the periodic tasks of ``CELERY_BEAT_SCHEDULE`` those lines are dropped unless the run did
something: a "succeeded" line whose result is not empty (``{"timeouts": 1, ...}``, ``True``, a
count) stays, as do every warning and error (a failed or retried run, a late computer move).
Other tasks log as before.
"""
from __future__ import annotations

import ast
import logging
from typing import Any

from django.conf import settings

SENDING = "Scheduler: Sending due task"


def periodic_task_names() -> frozenset[str]:
    """The task names of the beat schedule."""
    schedule = getattr(settings, "CELERY_BEAT_SCHEDULE", None) or {}
    return frozenset(entry["task"] for entry in schedule.values() if "task" in entry)


def did_nothing(value: Any) -> bool:
    """A task's result that reports no work: None, False, 0, empty, or a dict of such."""
    if isinstance(value, dict):
        return all(did_nothing(v) for v in value.values())
    if isinstance(value, (list, tuple, set)):
        return all(did_nothing(v) for v in value)
    return not value


def _result(text: Any) -> Any:
    """The logged result (Celery logs its repr), or a marker that it did something."""
    try:
        return ast.literal_eval(str(text))
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return True  # not a plain value: keep the line


class QuietPeriodicTasks(logging.Filter):
    """Drops Celery's INFO lines about periodic runs that did nothing (see the module)."""

    def __init__(self, name: str = "") -> None:
        super().__init__(name)
        self._names: frozenset[str] | None = None

    @property
    def names(self) -> frozenset[str]:
        if self._names is None:  # read on first use: the filter is built while settings load
            self._names = periodic_task_names()
        return self._names

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno != logging.INFO:
            return True
        msg = str(record.msg)
        if msg.startswith(SENDING):
            args = record.args if isinstance(record.args, tuple) else ()
            return not (len(args) >= 2 and args[1] in self.names)
        data = getattr(record, "data", None)
        if not isinstance(data, dict) or data.get("name") not in self.names:
            return True
        if "return_value" in data:  # "succeeded in 0.01s: {...}"
            return not did_nothing(_result(data["return_value"]))
        return "received" not in msg  # "received": the result will tell


class OneLineSecurityNotes(logging.Filter):
    """``django.security`` notes (a path outside the media folder, a bad Host header) as one
    line each, without the traceback Django attaches: a visitor's odd request is expected, not
    a fault of the site, and anyone could fill the log with 30-line tracebacks."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.name.startswith("django.security."):
            record.exc_info = None
            record.exc_text = None
        return True
