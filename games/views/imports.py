"""Record import (docs/records.md, "Imported records"): the upload, the records a person
kept (their replay with its analysis, the list, deletion), each seen by its importer only."""
from __future__ import annotations

from django.contrib import messages
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from core.http import for_viewer_only
from games import engine as E
from games.bots.analysis import ANALYSER_VERSION

from .. import conf, records, replay, selectors, services
from ..exceptions import ImportNotFound, ImportNotKept
from ..forms import RECORD_MAX_BYTES, RecordImportForm
from ..models import Mode
from .analysis import analysis_answer


def _import_page(request, form, *, status=200, upload_error=""):
    kept = (selectors.imported_records(request.user, current_version=ANALYSER_VERSION)
            if request.user.is_authenticated else [])
    return render(request, "games/import.html", {
        "form": form, "upload_error": upload_error, "kept": kept,
        "cap": conf.get("IMPORTS_PER_USER"),
    }, status=status)


@require_http_methods(["GET", "HEAD", "POST"])
def game_import(request):
    """Upload a record file: it is replayed through the engine. A signed-in person's record
    is kept for them (once per record) and shown on its own page, where it may be analysed;
    a signed-out visitor's is shown and not kept."""
    if request.method != "POST":
        return _import_page(request, RecordImportForm())
    try:
        length = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        length = 0
    if length > 2 * RECORD_MAX_BYTES:  # refused before reading the upload
        return _import_page(request, RecordImportForm(), status=400,
                            upload_error="The file is larger than 1 MB: not a game record.")
    form = RecordImportForm(request.POST, request.FILES)
    if not form.is_valid():
        return _import_page(request, form, status=400)
    try:
        record, names, forfeit, stand_ins = records.record_import_with_forfeit(
            form.cleaned_data["record"])
    except records.RecordImportError as exc:
        form.add_error("record", str(exc))
        return _import_page(request, form, status=400)
    filename = request.FILES["record"].name
    not_kept = ""
    if request.user.is_authenticated:
        try:
            kept, outcome = services.import_keep(owner=request.user, record=record,
                                                 names=names, filename=filename,
                                                 forfeit=forfeit, stand_ins=stand_ins)
        except ImportNotKept as exc:
            not_kept = exc.message
        else:
            if outcome == "completed":
                messages.info(request, "You had imported this record already: here it is, "
                              "now with who forfeited or left, as this file says.")
            elif outcome == "again":
                messages.info(request, "You had imported this record already: here it is.")
            return redirect(kept.get_absolute_url())
    return render(request, "games/game_imported.html", {
        "record": record, "names": names,
        "replay": replay.replay_data(record, names, stand_ins),
        "filename": filename, "not_kept": not_kept,
        "forfeit": records.forfeit_text(forfeit, names),
        "went_on": records.went_on_text(stand_ins, names),
        "mode_name": dict(Mode.choices).get(record.mode, record.mode),
        "own_rules": records.own_rules_text(record),
    })


def _owned(request, record_id):
    imported = selectors.imported_for_owner(record_id, request.user)
    if imported is None:
        raise Http404("No such imported record.")
    return imported


@require_safe
def imported(request, record_id):
    """An imported record's replay with its analysis: its importer only (404 for anyone
    else, signed in or not)."""
    kept = _owned(request, record_id)
    record = services.imported_engine_record(kept)
    try:
        data = (replay.replay_data(record, list(kept.names), kept.stand_ins or [])
                if record is not None else None)
    except E.EngineError:  # kept by an engine that read it differently: gone wrong
        data = None
    analysis = None
    if data is not None:
        analysis = selectors.imported_analysis_state(kept, request.user,
                                                     current_version=ANALYSER_VERSION)
        # the importer's own seat when the record names them (their own game, exported from
        # here): the jumps visit their moves first, as on a game's page
        analysis["viewer_seat"] = next(
            (seat for seat, name in enumerate(record.players)
             if name == request.user.username), None)
    return for_viewer_only(render(request, "games/game_imported.html", {
        "kept": kept, "record": record, "names": kept.names, "replay": data,
        "filename": kept.title, "analysis": analysis,
        "forfeit": records.forfeit_text(kept.forfeit, list(kept.names)),
        "went_on": records.went_on_text(kept.stand_ins or [], list(kept.names)),
        "own_rules": records.own_rules_text(record),
    }))


@require_safe
def imported_record(request, record_id, fmt):
    """A kept record's file again, as it was read (the engine's ``gin-record/1``, JSON or
    text, with the names it was imported with): its importer only."""
    if fmt not in ("json", "txt"):
        raise Http404("Records download as .json or .txt.")
    kept = _owned(request, record_id)
    record = services.imported_engine_record(kept)
    if record is None:
        raise Http404("This record no longer reads with the site's engine.")
    if fmt == "json":
        response = HttpResponse(record.to_json(indent=2), content_type="application/json")
    else:
        response = HttpResponse(record.to_text(), content_type="text/plain; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="imported-{kept.pk}.{fmt}"'
    return for_viewer_only(response)


@require_POST
def imported_delete(request, record_id):
    """Delete an imported record (the owner's only: 404 for any other id, and signed out)."""
    if not request.user.is_authenticated:
        raise Http404("No such imported record.")
    try:
        services.import_delete(owner=request.user, record_id=record_id)
    except ImportNotFound:
        raise Http404("No such imported record.") from None
    messages.success(request, "The imported record and its analysis are deleted.")
    return redirect("games:game_import")


@require_POST
def imported_analysis_request(request, record_id):
    """"Analyse this game" for an imported record: as for a game (JSON with ``Accept:
    application/json``, else a redirect with a message); 404 for anyone but its importer,
    409 while their other analysis runs."""
    return analysis_answer(
        request, lambda: services.analysis_request_import(record_id=record_id, user=request.user),
        page=reverse("games:imported", args=[record_id]), not_found="No such imported record.")


@require_safe
def imported_analysis_json(request, record_id):
    """Where the analysis of an imported record stands, with the stored result: its
    importer only (404 for anyone else)."""
    kept = selectors.imported_for_owner(record_id, request.user)
    if kept is None:
        return JsonResponse({"ok": False, "error": {"code": "not_found",
                                                    "message": "No such imported record."}},
                            status=404)
    state = selectors.imported_analysis_state(kept, request.user,
                                              current_version=ANALYSER_VERSION)
    return for_viewer_only(JsonResponse({"ok": True, **state}))
