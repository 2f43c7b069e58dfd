"""The engine package of the offline game (docs/offline.md): ``games/engine``, ``games/bots``
and ``games/local`` (only their ``.py`` files) in one zip that the browser's Pyodide unpacks.

Built by ``manage.py build_offline_engine`` (``scripts/setup.sh`` runs it before
``collectstatic``, so the run command and the test command both have it), never copied by
hand. The zip is deterministic: sorted entries, fixed timestamps, so the same source gives
the same bytes (and the same hashed name once collected).
"""
from __future__ import annotations

import io
import zipfile
from pathlib import Path

from django.conf import settings

PACKAGES = ("games/engine", "games/bots", "games/local")
STATIC_NAME = "offline/engine.zip"  # its name among the static files
FIXED_TIME = (1980, 1, 1, 0, 0, 0)


def source_files(base: Path | None = None) -> list[tuple[str, bytes]]:
    """(name in the zip, bytes) of every file packaged, sorted by name."""
    base = base or Path(settings.BASE_DIR)
    files = [("games/__init__.py", b"")]
    for package in PACKAGES:
        for path in (base / package).rglob("*.py"):
            files.append((path.relative_to(base).as_posix(), path.read_bytes()))
    return sorted(files)


def build_bytes(base: Path | None = None) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
        for name, data in source_files(base):
            info = zipfile.ZipInfo(name, date_time=FIXED_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            zf.writestr(info, data)
    return out.getvalue()


def output_path() -> Path:
    """Where the build writes it: a git-ignored folder of ``STATICFILES_DIRS``."""
    return Path(settings.OFFLINE_GENERATED_STATIC) / STATIC_NAME


def build(path: Path | None = None) -> tuple[Path, int, bool]:
    """Write the package if it changed; returns (path, size, written)."""
    path = path or output_path()
    data = build_bytes()
    if path.exists() and path.read_bytes() == data:
        return path, len(data), False
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_bytes(data)
    tmp.replace(path)
    return path, len(data), True
