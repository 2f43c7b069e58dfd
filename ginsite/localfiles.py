"""The files the settings point at on this machine, and :func:`prepare`, which makes them.

Reading the settings changes nothing on disk. Every entry point calls :func:`prepare` before
Django reads them: ``manage.py`` (so ``scripts/setup.sh`` and ``scripts/run.sh`` through
it), ``ginsite.asgi`` (Daphne), ``ginsite.wsgi``, the Celery app (before it loads its
configuration), the test suite's ``tests/conftest.py`` and the bench scripts. It creates
``GINSITE_VAR_DIR`` (the SQLite database, media, beat's schedule), the filesystem broker's
folders, ``STATIC_ROOT`` and, unless ``SECRET_KEY`` is set, the generated key in
``GINSITE_VAR_DIR/secret_key`` that the settings then read.
"""
from __future__ import annotations

import os
import secrets
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent


def var_dir() -> Path:
    return Path(os.environ.get("GINSITE_VAR_DIR", BASE_DIR / "var"))


def static_root() -> Path:
    return Path(os.environ.get("STATIC_ROOT", BASE_DIR / "staticfiles"))


def broker_folders() -> dict[str, Path]:
    """The folders of kombu's filesystem transport (the broker without ``REDIS_URL``)."""
    broker = var_dir() / "celery-broker"
    return {name: broker / name for name in ("queue", "processed", "control")}


def secret_key_file() -> Path:
    return var_dir() / "secret_key"


def stored_secret_key() -> str:
    """The key :func:`prepare` generated, or ``""`` before it has run."""
    try:
        return secret_key_file().read_text().strip()
    except FileNotFoundError:
        return ""


def _generate_secret_key(path: Path) -> None:
    """Make the key in ``path`` (readable by its owner only) unless a usable one is there.

    Several processes start together (Daphne, the Celery worker): the first to create the
    file wins and the others read it."""
    try:
        if len(path.read_text().strip()) >= 50:
            return
    except FileNotFoundError:
        pass
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(secrets.token_urlsafe(64) + "\n")
    try:
        os.link(tmp, path)  # fails if another process got there first
    except FileExistsError:
        pass
    finally:
        tmp.unlink()


def prepare() -> None:
    """Create the folders and the generated secret key the settings expect (idempotent)."""
    var_dir().mkdir(parents=True, exist_ok=True)
    static_root().mkdir(parents=True, exist_ok=True)
    if not os.environ.get("REDIS_URL"):  # the settings' condition for the filesystem broker
        for folder in broker_folders().values():
            folder.mkdir(parents=True, exist_ok=True)
    if not os.environ.get("SECRET_KEY"):
        _generate_secret_key(secret_key_file())
