#!/usr/bin/env bash
# Sets up on a fresh clone and starts the whole site: Daphne (HTTP + WebSockets) on
# http://$HOST:$PORT (default 127.0.0.1:8000) and a Celery worker with beat, which is started
# again if it dies. Ctrl-C (or SIGTERM) stops everything.
# HOST and PORT may be set in the environment; see README.md for the other settings.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh requirements.txt
HOST="${HOST:-127.0.0.1}"
PORT="${PORT:-8000}"
VAR_DIR="${GINSITE_VAR_DIR:-$PWD/var}"
mkdir -p "$VAR_DIR"

# Without REDIS_URL the channel layer is in-memory in Daphne: the worker hands its frames (the
# computer's moves, timeouts, presence) to Daphne's relay endpoint (ginsite/relay.py).
case "$HOST" in
  0.0.0.0 | "" ) RELAY_HOST=127.0.0.1 ;;
  :: | "[::]" ) RELAY_HOST="[::1]" ;;
  *:* ) RELAY_HOST="[$HOST]" ;;
  * ) RELAY_HOST="$HOST" ;;
esac
export GINSITE_RELAY_URL="${GINSITE_RELAY_URL:-http://$RELAY_HOST:$PORT/internal/relay/}"

STOP_FLAG="$VAR_DIR/run.stopping.$$"
WORKER_PID_FILE="$VAR_DIR/run.worker.$$"
rm -f "$STOP_FLAG"

# The worker (with beat), restarted when it exits on its own.
(
  trap '' INT  # Ctrl-C reaches the worker itself; this loop stops on the flag
  while [ ! -e "$STOP_FLAG" ]; do
    .venv/bin/celery -A ginsite worker --beat --loglevel=INFO --concurrency=2 \
      --without-mingle --without-gossip \
      --schedule="$VAR_DIR/celerybeat-schedule" &
    echo $! > "$WORKER_PID_FILE"
    code=0
    wait $! || code=$?
    [ -e "$STOP_FLAG" ] && break
    echo "run.sh: the Celery worker exited (status $code); starting it again in 2 s" >&2
    sleep 2
  done
) &
SUPERVISOR_PID=$!

stop_all() {
  trap - EXIT INT TERM
  touch "$STOP_FLAG"
  [ -n "${DAPHNE_PID:-}" ] && kill -TERM "$DAPHNE_PID" 2>/dev/null || true
  local worker
  worker="$(cat "$WORKER_PID_FILE" 2>/dev/null || true)"
  [ -n "$worker" ] && kill -TERM "$worker" 2>/dev/null || true
  # A warm shutdown finishes the task at hand; after 10 s the worker is killed.
  for _ in $(seq 100); do
    if ! kill -0 "$SUPERVISOR_PID" 2>/dev/null && ! kill -0 "${DAPHNE_PID:-0}" 2>/dev/null; then
      break
    fi
    sleep 0.1
  done
  [ -n "$worker" ] && kill -KILL "$worker" 2>/dev/null || true
  [ -n "${DAPHNE_PID:-}" ] && kill -KILL "$DAPHNE_PID" 2>/dev/null || true
  kill -KILL "$SUPERVISOR_PID" 2>/dev/null || true
  # The worker's pool and beat processes may outlive it for a moment (beat has been seen to
  # hang at "Shutting down"): give them 3 s, then kill what is left of ours.
  # (Only when this script leads its process group, as in a terminal: then they are ours.)
  local left="" group
  group="$(ps -o pgid= $$ | tr -d ' ')"
  if [ "$group" = "$$" ]; then
    for _ in $(seq 30); do
      left="$(pgrep -g "$group" -f 'celery|daphne' || true)"
      [ -z "$left" ] && break
      sleep 0.1
    done
    [ -n "$left" ] && kill -KILL $left 2>/dev/null || true
  fi
  rm -f "$STOP_FLAG" "$WORKER_PID_FILE"
  echo "Stopped."
}
trap stop_all EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

echo "Starting the site on http://$HOST:$PORT/ (Ctrl-C to stop)"
.venv/bin/daphne -b "$HOST" -p "$PORT" ginsite.asgi:application &
DAPHNE_PID=$!
wait "$DAPHNE_PID"
