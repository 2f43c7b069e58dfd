"""Writes of imported records (docs/records.md, "Imported records"): keeping a record a
signed-in person imported, once per person and record content, within a per-person count
and a size cap; deleting one (its analyses go with it)."""
from __future__ import annotations

import hashlib
import json
import zlib
from typing import Any, Literal

from django.db import IntegrityError, transaction

from accounts.models import User
from games import engine as E

from .. import conf
from ..exceptions import ImportNotFound, ImportNotKept
from ..models import ImportedRecord

FILENAME_MAX = 120
# what keeping an import did: a new row, the row kept before, or that row completed by what
# this file said and the first did not (the import page says which)
KeepOutcome = Literal["new", "again", "completed"]


def import_digest(record: E.GameRecord, names: list[str]) -> str:
    """sha256 of the canonical JSON of the engine record and the seats' names: the same
    record gives the same digest, whichever form (text or JSON) its file had."""
    payload = json.dumps({"record": record.to_dict(), "names": list(names)},
                         sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(payload.encode()).hexdigest()


def import_seed(record: ImportedRecord) -> int:
    """The analyser's seed for an imported record: fixed by its content (its digest), so
    the same record gives the same numbers, whoever imported it and however often."""
    return zlib.crc32(f"analysis:import:{record.digest}".encode())


def imported_engine_record(record: ImportedRecord) -> E.GameRecord | None:
    """The kept record as the engine reads it (None if it no longer reads)."""
    try:
        return E.GameRecord.from_dict(record.record)
    except E.EngineError:
        return None


def _clean_filename(name: str) -> str:
    name = "".join(ch for ch in (name or "") if ch.isprintable()).strip()
    name = name.replace("\\", "/").rsplit("/", 1)[-1]
    return name[:FILENAME_MAX]


def import_keep(*, owner: User, record: E.GameRecord, names: list[str],
                filename: str, forfeit: dict[str, Any] | None = None,
                stand_ins: list[dict[str, Any]] | None = None,
                ) -> tuple[ImportedRecord, KeepOutcome]:
    """Keep ``record`` (read and replayed by ``records.record_import``) for ``owner``: the
    row and ``"new"`` when it is new; the row kept before and ``"again"`` when ``owner``
    imported the same record already, or ``"completed"`` when this file said what the first
    did not (who forfeited or left) and the row now says it too. ``forfeit``: who forfeited,
    as the site's JSON said; ``stand_ins``: the seats the computer played on for a person who
    left, likewise. Refused
    (``ImportNotKept``, nothing stored) past the per-person count
    (``GAMES_IMPORTS_PER_USER``) or the size cap (``GAMES_IMPORT_KEEP_MAX_BYTES``)."""
    data = record.to_dict()
    size = len(json.dumps(data, separators=(",", ":")).encode())
    limit = int(conf.get("IMPORT_KEEP_MAX_BYTES"))
    if size > limit:
        raise ImportNotKept(f"This record is too long to keep and analyse ({size // 1000} KB; "
                            f"at most {limit // 1000} KB).")
    digest = import_digest(record, names)
    existing = ImportedRecord.objects.filter(owner=owner, digest=digest).first()
    if existing is not None:
        return existing, _complete(existing, forfeit, stand_ins)
    cap = int(conf.get("IMPORTS_PER_USER"))
    result = record.result
    try:
        with transaction.atomic():
            # the owner's row, locked: two imports at the same moment cannot pass the cap
            User.objects.select_for_update().filter(pk=owner.pk).first()
            if ImportedRecord.objects.filter(owner=owner).count() >= cap:
                raise ImportNotKept(
                    f"You keep {cap} imported records, the most: delete one to keep and "
                    "analyse this one.")
            row = ImportedRecord.objects.create(
                owner=owner, digest=digest, filename=_clean_filename(filename),
                mode=record.mode, names=list(names), moves=len(record.moves),
                finished=result is not None,
                totals=list(result.totals) if result is not None else [],
                forfeit=forfeit, stand_ins=list(stand_ins or []), record=data)
    except IntegrityError:  # the same record imported at the same moment
        existing = ImportedRecord.objects.filter(owner=owner, digest=digest).first()
        if existing is None:
            raise
        return existing, "again"
    return row, "new"


def _complete(kept: ImportedRecord, forfeit: dict[str, Any] | None,
              stand_ins: list[dict[str, Any]] | None) -> KeepOutcome:
    """The record kept before takes what a new file of the same game says and it did not
    (who forfeited, who left and the computer played on for): an engine record of a game,
    then the site's JSON of it, had kept only the first file's silence."""
    fields = []
    if forfeit and not kept.forfeit:
        kept.forfeit = forfeit
        fields.append("forfeit")
    if stand_ins and not kept.stand_ins:
        kept.stand_ins = list(stand_ins)
        fields.append("stand_ins")
    if fields:
        kept.save(update_fields=fields)
        return "completed"
    return "again"


def import_delete(*, owner: User, record_id: int) -> None:
    """Delete ``owner``'s imported record ``record_id`` with its analyses (a queued or
    running analysis of it is dropped: the task finds nothing to do, and the owner's one
    analysis at a time is free again). Anyone else's record: ``ImportNotFound``."""
    deleted, _ = ImportedRecord.objects.filter(pk=record_id, owner_id=owner.pk).delete()
    if not deleted:
        raise ImportNotFound()
