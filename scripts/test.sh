#!/usr/bin/env bash
# Sets up on a fresh clone and runs the whole test suite on the embedded default
# (SQLite, in-memory channel layer) unless DATABASE_URL / REDIS_URL are set.
# Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh requirements-dev.txt
exec .venv/bin/python -m pytest "$@"
