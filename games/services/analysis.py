"""Post-game analysis on the site: asking for one, running it, storing it (docs/analysis.md).

The analyser is pure (``games.bots.analysis``); this module keeps its answers. An analysis is
made once per game and analyser version (``Analysis``, unique on both) and re-used by every
later request. Its making is an ``AnalysisJob`` (one per game and version) that goes queued,
running (with progress), then done or failed; the Celery task ``games.analyse`` (queued by
name after the commit: ``games.tasks`` calls the services, never the other way round) runs
:func:`analysis_run`. A person has one analysis queued or running at a time (the
``analysisjob_one_active_per_user`` constraint stands behind the check). Progress and the end
go to the requester's notification sockets (``core.channels.user_group``: ``games`` does not
import ``social``) as ``analysis`` frames; the page also polls ``analysis.json``.
"""
from __future__ import annotations

import logging
import time
import zlib
from typing import TYPE_CHECKING, Any

from celery import current_app
from django.contrib.auth.models import AnonymousUser
from django.db import IntegrityError, transaction
from django.utils import timezone

from core.channels import notify_event, send_after_commit, send_now, user_group
from games import engine as E
from games.bots.analysis import ANALYSER_VERSION, analyse, decision_count

from .. import conf, records
from ..exceptions import (
    AnalysisBusy,
    AnalysisNoRecord,
    AnalysisNotFound,
    AnalysisSignIn,
)
from ..models import (
    ANALYSIS_ACTIVE,
    Analysis,
    AnalysisJob,
    AnalysisStatus,
    Game,
    ImportedRecord,
)
from ..selectors import (
    analysis_busy,
    analysis_frame,
    analysis_subject,
    game_for_viewer,
    imported_for_owner,
)
from .analysis_store import store_game_analysis, store_imported_analysis
from .imports import import_seed, imported_engine_record
from .locking import after_commit

if TYPE_CHECKING:
    from accounts.models import User

log = logging.getLogger(__name__)

TASK = "games.analyse"


def analysis_seed(game: Game) -> int:
    """The analyser's seed for ``game``: fixed by the game (its id and deal seed), so the
    same game analysed twice gives the same numbers."""
    return zlib.crc32(f"analysis:{game.pk}:{game.seed}".encode())


def stale(job: AnalysisJob) -> bool:
    """Queued or running, but silent for longer than ``GAMES_ANALYSIS_STALE``: lost."""
    limit = float(conf.get("ANALYSIS_STALE"))
    return (job.status in ANALYSIS_ACTIVE
            and (timezone.now() - job.beat_at).total_seconds() > limit)


def analysis_queue() -> str:
    """The queue of analyses: ``<default queue>.analysis``, read by a worker of its own
    (``scripts/run.sh`` starts one), so that an analysis, a minute or more of one process,
    never holds up the computers' moves and the sweeps on the default queue."""
    return f"{current_app.conf.task_default_queue}.analysis"


def send_to_analyses(task: str, *args: object) -> None:
    """``task`` queued by name on the analyses' queue (a worker of its own: long work never
    holds up the computers' moves and the sweeps), the broker tried a few times. A failure
    to queue is logged, never raised: its caller's row waits, goes stale and is queued again
    (an analysis job, an offline game's check)."""
    try:
        current_app.signature(task, args=args).apply_async(
            queue=analysis_queue(), retry=True,
            retry_policy={"max_retries": 2, "interval_start": 0.2, "interval_step": 0.5})
    except Exception:
        log.exception("could not queue %s%r", task, args)


def _queue(job_id: int) -> None:
    """After the commit: the analysis task, on the analyses' queue. A failure to queue
    leaves the job queued; it goes stale and may be asked for again."""
    after_commit(lambda: send_to_analyses(TASK, job_id))


def _tell(job: AnalysisJob) -> None:
    """The job's state to its requester's notification sockets, after the commit."""
    if job.requested_by_id is not None:
        send_after_commit(user_group(job.requested_by_id), notify_event(analysis_frame(job)))


def _release_stale(user_id: int) -> None:
    """The user's lost jobs stop holding their one analysis at a time."""
    for job in AnalysisJob.objects.select_for_update().filter(
            requested_by_id=user_id, status__in=ANALYSIS_ACTIVE):
        if stale(job):
            _fail(job, "The analysis was lost on the way; ask again.")


def _fail(job: AnalysisJob, message: str) -> None:
    job.status = AnalysisStatus.FAILED
    job.error = message[:200]
    job.finished_at = timezone.now()
    job.save(update_fields=["status", "error", "finished_at"])


def analysis_request(*, game_id: int, user: User | AnonymousUser | None) -> AnalysisJob:
    """``user`` asks for the analysis of ``game_id`` by the current analyser.

    Anyone signed in who may see the game may ask (a private game's players only; another
    user is answered as for a missing game). A game analysed already is answered at once
    (the job is done, nothing is queued); one being analysed is joined. Otherwise the job is
    queued, and the user's one analysis at a time is taken: a second is refused
    (``AnalysisBusy``) and changes nothing."""
    if user is None or not user.is_authenticated:
        if game_for_viewer(game_id, None) is None:
            raise AnalysisNotFound()
        raise AnalysisSignIn()
    if game_for_viewer(game_id, user) is None:
        raise AnalysisNotFound()
    try:
        with transaction.atomic():
            return _request(game_id=game_id, user_id=user.pk)
    except IntegrityError as exc:  # a request of the same user at the same moment
        raise AnalysisBusy() from exc


def analysis_request_import(*, record_id: int,
                            user: User | AnonymousUser | None) -> AnalysisJob:
    """``user`` asks for the analysis of their imported record ``record_id``: as
    :func:`analysis_request` (the same task, the same one at a time), but only the record's
    importer may ask; anyone else, signed out or not, is answered as for a missing record."""
    if user is None or imported_for_owner(record_id, user) is None:
        raise AnalysisNotFound("No such imported record.")
    try:
        with transaction.atomic():
            return _request(imported_id=record_id, user_id=user.pk)
    except ImportedRecord.DoesNotExist as exc:  # deleted meanwhile
        raise AnalysisNotFound("No such imported record.") from exc
    except IntegrityError as exc:
        raise AnalysisBusy() from exc


def _request(*, user_id: int | None, game_id: int | None = None,
             imported_id: int | None = None) -> AnalysisJob:
    """Queue (or join, or answer) the analysis of the game ``game_id`` or of the imported
    record ``imported_id``."""
    subject: Game | ImportedRecord
    if imported_id is not None:
        subject = ImportedRecord.objects.select_for_update().get(pk=imported_id)
        where: dict[str, Any] = {"imported": subject}
    else:
        assert game_id is not None
        subject = Game.objects.select_for_update().get(pk=game_id)
        where = {"game": subject}
    now = timezone.now()
    job = AnalysisJob.objects.select_for_update().filter(
        **where, version=ANALYSER_VERSION).first()
    if job is not None and (job.status == AnalysisStatus.DONE
                            or (job.status in ANALYSIS_ACTIVE and not stale(job))):
        return job  # stored, or on its way: joined
    if _engine_record(subject) is None:
        raise AnalysisNoRecord()
    if Analysis.objects.filter(**where, version=ANALYSER_VERSION).exists():
        # stored by a job that was lost after storing it: nothing more to do
        job = job or AnalysisJob(**where, version=ANALYSER_VERSION, beat_at=now)
        job.status, job.finished_at, job.beat_at = AnalysisStatus.DONE, now, now
        job.save()
        return job
    if user_id is not None:
        _release_stale(user_id)
        busy = analysis_busy(user_id, besides=where)
        if busy is not None:
            raise AnalysisBusy(f"Your analysis of {analysis_subject(busy)} is still running: "
                               "one at a time.")
    if job is None:
        job = AnalysisJob(**where, version=ANALYSER_VERSION)
    job.requested_by_id = user_id
    job.automatic = user_id is None
    job.status = AnalysisStatus.QUEUED
    job.done = job.total = 0
    job.error = ""
    job.started_at = job.finished_at = None
    job.beat_at = now
    job.save()
    _tell(job)  # (before the task is queued: with eager tasks it runs in that callback)
    _queue(job.pk)
    return job


def analysis_request_automatic(*, game_id: int) -> AnalysisJob | None:
    """The analysis of ``game_id`` asked for by the site (a tournament final): nobody's one
    at a time, no frames. None when the game cannot be analysed (no record, or gone)."""
    try:
        with transaction.atomic():
            return _request(game_id=game_id, user_id=None)
    except (Game.DoesNotExist, AnalysisNoRecord):
        return None


class _Gone(Exception):
    """The job was deleted while it ran (with its imported record)."""


class _Progress:
    """The analyser's progress callback: stores ``done/total`` and tells the requester, at
    most every ``GAMES_ANALYSIS_PROGRESS_EVERY`` seconds and at the end."""

    def __init__(self, job: AnalysisJob):
        self.job = job
        self.every = float(conf.get("ANALYSIS_PROGRESS_EVERY"))
        self.last = 0.0

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if done < total and now - self.last < self.every:
            return
        self.last = now
        job = self.job
        job.done, job.total, job.beat_at = done, total, timezone.now()
        updated = AnalysisJob.objects.filter(pk=job.pk, status=AnalysisStatus.RUNNING).update(
            done=done, total=total, beat_at=job.beat_at)
        if not updated and not AnalysisJob.objects.filter(pk=job.pk).exists():
            raise _Gone()  # its imported record was deleted: stop
        if job.requested_by_id is not None:
            send_now([(user_group(job.requested_by_id), notify_event(analysis_frame(job)))])


def _start(job_id: int) -> tuple[AnalysisJob, Game | ImportedRecord, E.GameRecord] | None:
    """Take the job (queued, or lost): running. None when there is nothing to do: done,
    failed, running elsewhere, or stored already."""
    with transaction.atomic():
        job = AnalysisJob.objects.select_for_update().filter(pk=job_id).first()
        if job is None or job.status in (AnalysisStatus.DONE, AnalysisStatus.FAILED):
            return None
        if job.status == AnalysisStatus.RUNNING and not stale(job):
            return None  # a second delivery of the task while the first runs
        subject = (ImportedRecord.objects.filter(pk=job.imported_id).first()
                   if job.imported_id is not None
                   else Game.objects.filter(pk=job.game_id or 0).first())
        record = _engine_record(subject) if subject is not None else None
        now = timezone.now()
        target = ({"imported_id": job.imported_id} if job.imported_id is not None
                  else {"game_id": job.game_id})
        if Analysis.objects.filter(**target, version=job.version).exists():
            job.status, job.finished_at, job.beat_at = AnalysisStatus.DONE, now, now
            job.save()
            _tell(job)
            return None
        if subject is None or record is None or job.version != ANALYSER_VERSION:
            _fail(job, AnalysisNoRecord.default_message if record is None
                  else "The analyser has changed since this was asked for; ask again.")
            _tell(job)
            return None
        job.status, job.started_at, job.beat_at = AnalysisStatus.RUNNING, now, now
        job.done, job.total = 0, decision_count(record)
        job.save()
        _tell(job)
    return job, subject, record


def _engine_record(subject: Game | ImportedRecord) -> E.GameRecord | None:
    """The record the analyser reads: a game's stored one, or an imported record's."""
    if isinstance(subject, ImportedRecord):
        return imported_engine_record(subject)
    return records.engine_record(subject)


def analysis_run(*, job_id: int) -> bool:
    """Run the job ``job_id`` (the task ``games.analyse``): judge every decision, store the
    analysis and the seats' summaries, tell the requester. Safe to run twice: a job done,
    failed or running elsewhere is left alone, and the analysis is stored once (its unique
    constraint). True when this call stored it."""
    started = _start(job_id)
    if started is None:
        return False
    job, subject, record = started
    seed = (import_seed(subject) if isinstance(subject, ImportedRecord)
            else analysis_seed(subject))
    begun = time.monotonic()
    timed_out: frozenset[int] = frozenset()
    played_on: frozenset[int] = frozenset()
    if not isinstance(subject, ImportedRecord):  # (an imported record has no sources)
        timed_out = records.timed_out_moves(subject, record)
        played_on = records.played_on_moves(subject, record)
    try:
        result = analyse(record, seed=seed, progress=_Progress(job), timed_out=timed_out,
                         played_on=played_on)
    except _Gone:
        return False
    except E.RecordError:
        return _give_up(job, AnalysisNoRecord.default_message)
    except Exception:
        log.exception("the analysis of %s failed", analysis_subject(job))
        return _give_up(job, "The analysis failed; ask again later.")
    seconds = time.monotonic() - begun
    try:
        with transaction.atomic():
            job = AnalysisJob.objects.select_for_update().get(pk=job.pk)
            if isinstance(subject, ImportedRecord):
                stored = store_imported_analysis(subject, result, seed=seed, seconds=seconds)
            else:
                stored = store_game_analysis(subject, result, seed=seed, seconds=seconds)
            now = timezone.now()
            job.status, job.finished_at, job.beat_at = AnalysisStatus.DONE, now, now
            job.done = job.total = len(result.decisions)
            job.error = ""
            job.save()
            _tell(job)
    except IntegrityError:  # stored meanwhile by another run: the same numbers
        return False
    except AnalysisJob.DoesNotExist:  # deleted meanwhile, with its imported record
        return False
    return stored


def _give_up(job: AnalysisJob, message: str) -> bool:
    with transaction.atomic():
        found = AnalysisJob.objects.select_for_update().filter(pk=job.pk).first()
        if found is not None and found.status == AnalysisStatus.RUNNING:
            job = found
            _fail(job, message)
            _tell(job)
    return False
