"""The fault suite's helpers (tests/games/test_faults.py, test_faults_outage.py): ``site``
(the processes), ``players`` (the clients), ``checks`` (the tables and what must hold)."""
from __future__ import annotations

import os
import shutil

import pytest

# The marks of every fault test: a worker test on PostgreSQL + Redis (CI's second pass)
FAULT_SUITE = [
    pytest.mark.worker,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        not (os.environ.get("REDIS_URL") and os.environ.get("DATABASE_URL")),
        reason="the fault suite needs PostgreSQL and Redis (DATABASE_URL and REDIS_URL)",
    ),
    pytest.mark.skipif(shutil.which("redis-server") is None,
                       reason="the fault suite starts its own redis-server"),
]
