#!/usr/bin/env bash
# Sets up on a fresh clone and starts the whole site: Daphne (HTTP + WebSockets) on
# http://127.0.0.1:8000 and a Celery worker with beat. Ctrl-C stops both.
# HOST and PORT may be set in the environment.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh requirements.txt
HOST="${HOST:-127.0.0.1}"
PORT="${PORT:-8000}"
.venv/bin/celery -A ginsite worker --beat --loglevel=INFO --concurrency=2 \
  --without-mingle --without-gossip &
CELERY_PID=$!
trap 'kill $CELERY_PID 2>/dev/null; wait $CELERY_PID 2>/dev/null' EXIT INT TERM
echo "Starting the site on http://$HOST:$PORT/ (Ctrl-C to stop)"
.venv/bin/daphne -b "$HOST" -p "$PORT" ginsite.asgi:application
