#!/usr/bin/env bash
# Sets up on a fresh clone and runs the whole test suite on the embedded default
# (SQLite, in-memory channel layer) unless DATABASE_URL / REDIS_URL are set.
# Extra arguments go to pytest. The tests run in one worker process per core, at most 8
# (pytest-xdist, each test file on one worker); TEST_WORKERS sets how many (TEST_WORKERS=0:
# in this process). With REDIS_URL each worker takes the next Redis database from the URL's
# (ginsite/settings/test.py): 8 from database 5 end at 12, within Redis's 16; more workers
# than cores only wait on each other, and each starts its own servers and browser.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh requirements-dev.txt
workers="${TEST_WORKERS:-$(.venv/bin/python -c 'import os; print(min(8, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1))')}"
exec .venv/bin/python -m pytest -n "$workers" --dist loadfile --no-loadscope-reorder "$@"
