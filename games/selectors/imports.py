"""Reads of imported records (docs/records.md, "Imported records"): a record is seen by
its importer only; anyone else (and a signed-out visitor) is answered as for a record that
does not exist."""
from __future__ import annotations

from typing import Any

from django.db.models import OuterRef, Subquery

from ..models import AnalysisJob, ImportedRecord


def imported_for_owner(record_id: int, user) -> ImportedRecord | None:
    """The imported record ``record_id`` if ``user`` imported it, else None (also for a
    signed-out visitor and for ids that do not exist)."""
    if user is None or not getattr(user, "is_authenticated", False):
        return None
    return ImportedRecord.objects.filter(pk=record_id, owner_id=user.pk).first()


def imported_count(user) -> int:
    return ImportedRecord.objects.filter(owner_id=user.pk).count()


def imported_records(user, *, current_version: int) -> list[dict[str, Any]]:
    """``user``'s imported records, newest first, each with where its analysis by the
    current analyser stands (``status``: ``none``, ``queued``, ``running``, ``done``,
    ``failed``). One query: the record's bulky JSON is not read."""
    job = AnalysisJob.objects.filter(imported_id=OuterRef("pk"), version=current_version)
    rows = (ImportedRecord.objects.filter(owner_id=user.pk)
            .defer("record")
            .annotate(analysis_status=Subquery(job.values("status")[:1])))
    out = []
    for r in rows:
        out.append({"record": r, "status": r.analysis_status or "none"})
    return out
