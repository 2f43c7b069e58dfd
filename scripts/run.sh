#!/usr/bin/env bash
# Sets up on a fresh clone and starts the whole site: Daphne (HTTP + WebSockets) on
# http://$HOST:$PORT (default 127.0.0.1:8000), a Celery worker with beat and one for post-game
# analyses, each started again if it dies. Ctrl-C (or SIGTERM) stops everything.
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
# ... and without Redis the processes share one cache in files (VAR_DIR/cache), started
# empty: a mark ("playing", a socket) from a run that ended is not taken for a live one.
export GINSITE_SHARED_CACHE=1
if [ -z "${REDIS_URL:-}" ]; then rm -rf "$VAR_DIR/cache"; fi

STOP_FLAG="$VAR_DIR/run.stopping.$$"
WORKER_PID_FILE="$VAR_DIR/run.worker.$$"
ANALYSIS_PID_FILE="$VAR_DIR/run.analysis.$$"
rm -f "$STOP_FLAG"

# The workers, each restarted when it exits on its own: the main one (with beat: computer
# moves, the sweeps, ratings, statistics) and one for post-game analyses, which take a
# process for a minute or more each and must never hold up the computer's moves
# (docs/analysis.md: games.analyse goes to the queue "<default queue>.analysis").
# Each worker runs in a process group of its own (setsid, where the system has it): a worker
# killed outright (out of memory, kill -9) leaves its pool and its embedded beat behind, and
# an orphaned beat went on scheduling the sweeps, beside the next worker's, even after the
# site was stopped. Its group goes with it.
SETSID=""
if command -v setsid >/dev/null 2>&1; then SETSID=setsid; fi
supervise() {
  local pid_file="$1"; shift
  (
    trap '' INT  # Ctrl-C stops the site through stop_all; this loop stops on the flag
    while [ ! -e "$STOP_FLAG" ]; do
      $SETSID .venv/bin/celery -A ginsite worker "$@" --without-mingle --without-gossip &
      pid=$!
      # Written whole, then renamed into place: a reader (stop_all, a test) never finds the
      # file empty between the truncation and the write.
      echo "$pid" > "$pid_file.new" && mv -f "$pid_file.new" "$pid_file"
      code=0
      wait "$pid" || code=$?
      if [ -n "$SETSID" ]; then kill -KILL -- "-$pid" 2>/dev/null || true; fi
      [ -e "$STOP_FLAG" ] && break
      echo "run.sh: a Celery worker exited (status $code); starting it again in 2 s" >&2
      sleep 2
    done
  ) &
}
supervise "$WORKER_PID_FILE" --beat --loglevel=INFO --concurrency=2
supervise "$ANALYSIS_PID_FILE" --loglevel=INFO --concurrency=1 -n "analysis@%h" \
  -Q "${CELERY_QUEUE:-celery}.analysis"

# Every process started below this script (Daphne, the supervisor loop, the worker, its pool
# and its embedded beat), read before anything is signalled: once a parent is gone its
# children are no longer ours to find.
descendants() {
  local child
  for child in $(ps -o pid= --ppid "$1" 2>/dev/null); do
    echo "$child"
    descendants "$child"
  done
}

# Wait (at most 10 s) for the processes in "$@" to exit, then kill what is left.
wait_gone() {
  local left pid
  for _ in $(seq 100); do
    left=""
    for pid in "$@"; do kill -0 "$pid" 2>/dev/null && left="$left $pid"; done
    [ -z "$left" ] && return 0
    sleep 0.1
  done
  kill -KILL $left 2>/dev/null || true
}

stop_all() {
  trap - EXIT INT TERM
  touch "$STOP_FLAG"
  local tree worker workers pid
  tree="$(descendants $$)"
  worker="$(cat "$WORKER_PID_FILE" "$ANALYSIS_PID_FILE" 2>/dev/null || true)"
  # The workers first, Daphne after them: the worker's beat and sweep went on for 3-4 s of
  # warm shutdown after Daphne had gone, applying deadlines that nobody could meet (every
  # socket was cut) and stamping the clocks' heartbeat, so the restart saw no gap to give back
  # (docs/operations.md, "Stopping"). A warm shutdown finishes the task at hand; what is
  # still running after 10 s is killed (beat has been seen to hang at "Shutting down").
  for pid in $worker; do kill -TERM "$pid" 2>/dev/null || true; done
  workers=""
  for pid in $tree; do [ "$pid" != "${DAPHNE_PID:-}" ] && workers="$workers $pid"; done
  wait_gone $workers
  [ -n "${DAPHNE_PID:-}" ] && kill -TERM "$DAPHNE_PID" 2>/dev/null || true
  wait_gone $tree
  rm -f "$STOP_FLAG" "$WORKER_PID_FILE" "$ANALYSIS_PID_FILE" "$WORKER_PID_FILE.new" \
    "$ANALYSIS_PID_FILE.new"
  echo "Stopped."
}
trap stop_all EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

echo "Starting the site on http://$HOST:$PORT/ (Ctrl-C to stop)"
.venv/bin/daphne -b "$HOST" -p "$PORT" ginsite.asgi:application &
DAPHNE_PID=$!
wait "$DAPHNE_PID"
