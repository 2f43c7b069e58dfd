#!/usr/bin/env bash
# Creates .venv (Python 3.11) if missing, installs the pinned requirements and migrates.
# Usage: scripts/setup.sh [requirements file]   (default requirements.txt)
set -euo pipefail
cd "$(dirname "$0")/.."
REQS="${1:-requirements.txt}"
PY="${PYTHON:-}"
if [ -z "$PY" ]; then
  for candidate in python3.11 python3 python; do
    if command -v "$candidate" >/dev/null 2>&1; then PY="$candidate"; break; fi
  done
fi
if [ ! -x .venv/bin/python ]; then
  echo "Creating the virtual environment in .venv with $PY"
  "$PY" -m venv .venv
fi
stamp=".venv/.installed-$(basename "$REQS")"
if [ ! -f "$stamp" ] || [ "$REQS" -nt "$stamp" ] || [ requirements.txt -nt "$stamp" ]; then
  .venv/bin/python -m pip install --quiet --disable-pip-version-check --upgrade pip
  .venv/bin/python -m pip install --quiet --disable-pip-version-check -r "$REQS"
  touch "$stamp"
fi
# requirements-dev.txt installs requirements.txt too (its "-r" line): with it installed, the
# run command's own check (scripts/run.sh, which browser tests start) has nothing to
# install, so no test start runs pip.
if [ "$REQS" != requirements.txt ] && grep -qx -- '-r requirements.txt' "$REQS"; then
  touch ".venv/.installed-requirements.txt"
fi
.venv/bin/python manage.py migrate --noinput -v 0
# The offline game's engine package (games/engine, games/bots, games/local), built from the
# source before collectstatic picks it up (docs/offline.md).
.venv/bin/python manage.py build_offline_engine -v 0
# Hashed, gzip- and brotli-compressed static files for production mode (the default; DEBUG=1
# serves static/ directly). Always with the production storage, whatever DEBUG says now.
# Only when a source changed since the last collection (names, sizes and times of the files,
# the storage and the pinned packages whose files it collects too): it takes ~10 s, and every
# start of scripts/run.sh comes through here.
static_dir="${STATIC_ROOT:-$PWD/staticfiles}"
sources="$(find static generated/static ginsite/storage.py requirements.txt -type f \
  -printf '%p %s %T@\n' | sort | sha1sum)"
if [ ! -f "$static_dir/staticfiles.json" ] || [ "$sources" != "$(cat "$static_dir/.sources" 2>/dev/null)" ]; then
  DEBUG=0 .venv/bin/python manage.py collectstatic --noinput -v 0
  printf '%s\n' "$sources" > "$static_dir/.sources"
fi
