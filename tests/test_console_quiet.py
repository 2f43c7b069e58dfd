"""The run command's console: periodic tasks log only runs that did something
(``ginsite.logfilters``), through the logging configuration of the settings and Celery's own
log calls. The run command itself is checked in tests/ui/test_run_command.py."""
from __future__ import annotations

import logging

import pytest
from celery.app import trace
from celery.utils.saferepr import saferepr

from games import tasks
from ginsite.logfilters import did_nothing


def _celery_lines(caplog, result, name="games.sweep"):
    """What beat and the worker log about one run of ``name`` that returned ``result``."""
    caplog.clear()
    logging.getLogger("celery.beat").info(
        "Scheduler: Sending due task %s (%s)", name.replace(".", "-"), name)
    context = {"id": "abc", "name": name, "args": "()", "kwargs": "{}", "eta": None}
    logging.getLogger("celery.worker.strategy").info(
        trace.LOG_RECEIVED, context, extra={"data": context})
    trace.info(trace.LOG_SUCCESS, {"id": "abc", "name": name, "return_value": saferepr(result),
                                   "runtime": 0.01, "args": "()", "kwargs": "{}"})
    return [r.getMessage() for r in caplog.records if r.name.startswith("celery")]


@pytest.mark.django_db
def test_a_sweep_that_did_nothing_logs_nothing_at_info(caplog):
    caplog.set_level(logging.INFO)
    result = tasks.sweep.apply().result  # a real sweep of an empty site
    assert result and did_nothing(result)
    assert _celery_lines(caplog, result) == []


def test_a_sweep_that_did_something_is_logged_with_what_it_did(caplog):
    caplog.set_level(logging.INFO)
    lines = _celery_lines(caplog, {"timeouts": 1, "presence": 0, "closed": 0})
    assert len(lines) == 1 and "succeeded" in lines[0] and "'timeouts': 1" in lines[0]


def test_other_tasks_and_warnings_still_log(caplog):
    caplog.set_level(logging.INFO)
    assert len(_celery_lines(caplog, None, name="games.table_bot_move")) == 3
    caplog.clear()
    logging.getLogger("celery.app.trace").warning("Task games.sweep[abc] retry: boom")
    assert [r.getMessage() for r in caplog.records] == ["Task games.sweep[abc] retry: boom"]


def test_did_nothing():
    assert did_nothing(None) and did_nothing(0) and did_nothing({"a": 0, "b": []})
    assert not did_nothing(True) and not did_nothing({"a": 0, "b": 2}) and not did_nothing(3)
