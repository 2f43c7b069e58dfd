"""Reads of post-game analysis: its state for a viewer (of a game, or of an imported record
for its owner), its progress frames, accuracy per mode and month (games only: imported
records are names in a file, and their analyses count in nobody's statistics)."""
from __future__ import annotations

from typing import Any

from django.db.models import Avg, Count, OuterRef, Subquery, Sum
from django.db.models.functions import TruncMonth
from django.urls import reverse

from ..models import (
    ANALYSIS_ACTIVE,
    Analysis,
    AnalysisJob,
    AnalysisSeat,
    AnalysisStatus,
    Game,
    ImportedRecord,
)

# ------------------------------------------------------------------------- analysis
#
# What the site shows of a game's analysis (docs/analysis.md). Every read takes a game the
# viewer may see (``game_for_viewer``): a private game's analysis goes to its players only.


def analysis_frame(job: AnalysisJob) -> dict[str, Any]:
    """The ``analysis`` frame of the notification socket, and the state ``analysis.json``
    answers: where the making of a game's analysis stands. Never carries the result (the
    page reads it from ``analysis.json``, which checks who may see it). The analysis of an
    imported record has ``game`` null and its ``record`` id."""
    frame: dict[str, Any] = {
        "type": "analysis", "game": job.game_id, "status": str(job.status),
        "done": job.done, "total": job.total,
    }
    if job.imported_id is not None:
        frame["record"] = job.imported_id
        frame["url"] = reverse("games:imported", kwargs={"record_id": job.imported_id})
    else:
        frame["url"] = reverse("games:game", kwargs={"game_id": job.game_id})
    if job.status == AnalysisStatus.FAILED:
        frame["error"] = job.error or "The analysis failed."
    return frame


def analysis_subject(job: AnalysisJob) -> str:
    """What a job analyses, for a sentence: "game 41", "the imported record “a.txt”"."""
    if job.imported_id is not None:
        title = (ImportedRecord.objects.filter(pk=job.imported_id)
                 .values_list("filename", flat=True).first()) or f"Record {job.imported_id}"
        return f"the imported record “{title}”"
    return f"game {job.game_id}"


def analysis_busy(user_id: int, *, besides: dict[str, Any]) -> AnalysisJob | None:
    """``user_id``'s analysis queued or running of anything but ``besides`` (``{"game":
    game}`` or ``{"imported": record}``): their one analysis at a time."""
    return (AnalysisJob.objects.filter(requested_by_id=user_id, status__in=ANALYSIS_ACTIVE)
            .exclude(**besides).first())


def stored_analysis(game: Game) -> Analysis | None:
    """The newest stored analysis of ``game`` (the current analyser's when there is one)."""
    return Analysis.objects.filter(game=game).order_by("-version").first()


def analysis_state(game: Game, viewer, *, current_version: int) -> dict[str, Any]:
    """For the game page and ``analysis.json``: ``status`` (``none``, ``queued``,
    ``running``, ``done``, ``failed``) with progress, whether ``viewer`` may ask for one
    (``can_request``, ``reason`` when not), and the stored ``analysis`` (the analyser's JSON,
    or None). ``game`` must be one the viewer may see."""
    return _state({"game": game}, viewer, current_version=current_version,
                  key={"game": game.pk},
                  urls=(reverse("games:game_analysis", args=[game.pk]),
                        reverse("games:game_analysis_json", args=[game.pk])))


def imported_analysis_state(record: ImportedRecord, viewer, *,
                            current_version: int) -> dict[str, Any]:
    """As :func:`analysis_state`, for an imported record (``viewer`` is its owner)."""
    return _state({"imported": record}, viewer, current_version=current_version,
                  key={"game": None, "record": record.pk},
                  urls=(reverse("games:imported_analysis", args=[record.pk]),
                        reverse("games:imported_analysis_json", args=[record.pk])))


def _state(where: dict[str, Any], viewer, *, current_version: int, key: dict[str, Any],
           urls: tuple[str, str]) -> dict[str, Any]:
    stored = Analysis.objects.filter(**where).order_by("-version").first()
    job = AnalysisJob.objects.filter(**where, version=current_version).first()
    state: dict[str, Any] = {**key, "status": "none", "done": 0, "total": 0}
    if job is not None:
        state.update({k: v for k, v in analysis_frame(job).items() if k != "type"})
    current = stored is not None and stored.version == current_version
    if current:
        state.update(status="done", done=state["total"] or state["done"])
    signed_in = bool(viewer is not None and getattr(viewer, "is_authenticated", False))
    busy = analysis_busy(viewer.pk, besides=where) if signed_in else None
    state["can_request"] = bool(signed_in and not current and state["status"] in (
        "none", "failed") and busy is None)
    if not signed_in:
        state["reason"] = "Sign in to ask for an analysis."
    elif busy is not None and not current:
        subject = analysis_subject(busy)
        state["reason"] = f"Your analysis of {subject} is still running: one at a time."
        state["busy_game"] = busy.game_id
        if busy.imported_id is not None:
            state["busy_record"] = busy.imported_id
    state["analysis"] = stored.data if stored is not None else None
    state["version"] = stored.version if stored is not None else None
    state["outdated"] = stored is not None and not current
    state["request_url"], state["json_url"] = urls
    return state


def accuracy_rows(*, user, viewer, modes: list[str] | None = None) -> list[dict[str, Any]]:
    """``user``'s average accuracy per mode over their analysed games (the newest analysis
    of each game): ``{"mode", "games", "accuracy", "blunders"}``, by mode. Games at private
    tables count only when ``viewer`` is ``user``: a profile never shows another person the
    figures of a private game."""
    rows = (_accuracy_seats(user=user, viewer=viewer).values("mode")
            .annotate(games=Count("id"), accuracy=Avg("accuracy"),
                      blunders=Sum("blunders"), mistakes=Sum("mistakes"))
            .order_by("mode"))
    return [{"mode": r["mode"], "games": r["games"], "accuracy": round(r["accuracy"], 1),
             "blunders": r["blunders"] or 0, "mistakes": r["mistakes"] or 0}
            for r in rows if modes is None or r["mode"] in modes]


def accuracy_by_month(*, user, viewer) -> list[dict[str, Any]]:
    """``user``'s average accuracy per month over their analysed games (every mode):
    ``{"month" (a date, the first of the month), "games", "accuracy"}``, oldest first."""
    rows = (_accuracy_seats(user=user, viewer=viewer)
            .annotate(month=TruncMonth("finished_at")).values("month")
            .annotate(games=Count("id"), accuracy=Avg("accuracy")).order_by("month"))
    return [{"month": r["month"], "games": r["games"], "accuracy": round(r["accuracy"], 1)}
            for r in rows]


def _accuracy_seats(*, user, viewer):
    """``user``'s analysed seats with decisions to judge, the newest version per game."""
    newest = Analysis.objects.filter(game_id=OuterRef("game_id")).order_by("-version")
    seats = AnalysisSeat.objects.filter(user=user, decisions__gt=0).filter(
        analysis_id=Subquery(newest.values("pk")[:1]))
    own = viewer is not None and getattr(viewer, "pk", None) == user.pk
    return seats if own else seats.filter(private=False)
