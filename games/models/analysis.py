"""Post-game analysis: the stored judgement of a game per analyser version, and its requests."""
from __future__ import annotations

from django.conf import settings
from django.db import models

from .imports import ImportedRecord
from .records import Game
from .tables import Mode

# ------------------------------------------------------------------------ analysis
#
# The Expert's judgement of every decision of a finished game (docs/analysis.md). The
# analyser itself is pure (``games.bots.analysis``); these rows keep its answer once per
# game and analyser version, and the requests that make it.


# Each analysis and job is of a stored game or of a record a person imported
# (``ImportedRecord``, seen by its importer only): exactly one of the two is set.
ONE_TARGET = (models.Q(game__isnull=False, imported__isnull=True)
              | models.Q(game__isnull=True, imported__isnull=False))


class Analysis(models.Model):
    """The stored analysis of a game (or of an imported record) by one version of the
    analyser: the analyser's JSON (``GameAnalysis.to_json()``) as it was made, kept and
    re-used."""

    game = models.ForeignKey(Game, null=True, blank=True, on_delete=models.CASCADE,
                             related_name="analyses")
    imported = models.ForeignKey(ImportedRecord, null=True, blank=True,
                                 on_delete=models.CASCADE, related_name="analyses")
    version = models.PositiveIntegerField()
    data = models.JSONField()
    seed = models.BigIntegerField()
    seconds = models.FloatField(default=0)  # how long the analyser took
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["game", "-version"]
        constraints = [
            models.UniqueConstraint(fields=["game", "version"], name="analysis_once_per_version"),
            models.UniqueConstraint(fields=["imported", "version"],
                                    name="analysis_import_once_per_version"),
            models.CheckConstraint(condition=ONE_TARGET, name="analysis_one_target"),
        ]

    def __str__(self):
        what = (f"game {self.game_id}" if self.game_id is not None
                else f"imported record {self.imported_id}")
        return f"analysis of {what} (v{self.version})"


class AnalysisSeat(models.Model):
    """One seat's summary of an analysis, in columns for statistics (accuracy per mode and
    its trend), with the game's facts copied as ``GamePlayer`` copies them."""

    analysis = models.ForeignKey(Analysis, on_delete=models.CASCADE, related_name="seats")
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="+")
    version = models.PositiveIntegerField()
    seat = models.PositiveSmallIntegerField()
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
        related_name="analysed_seats",
    )
    bot_level = models.PositiveSmallIntegerField(null=True, blank=True)
    mode = models.CharField(max_length=16, choices=Mode.choices)
    private = models.BooleanField(default=False)
    finished_at = models.DateTimeField()
    decisions = models.PositiveIntegerField(default=0)  # judged (not forced)
    accuracy = models.FloatField(default=0)  # percent
    total_loss = models.FloatField(default=0)  # points
    best = models.PositiveIntegerField(default=0)
    good = models.PositiveIntegerField(default=0)
    inaccuracies = models.PositiveIntegerField(default=0)
    mistakes = models.PositiveIntegerField(default=0)
    blunders = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["analysis", "seat"]
        constraints = [
            models.UniqueConstraint(fields=["analysis", "seat"], name="analysisseat_once"),
        ]
        indexes = [models.Index(fields=["user", "mode", "finished_at"],
                                name="analysisseat_user_mode")]

    def __str__(self):
        return f"{self.analysis_id}#{self.seat} {self.accuracy:.1f}%"


class AnalysisStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    DONE = "done", "Done"
    FAILED = "failed", "Failed"


ANALYSIS_ACTIVE = (AnalysisStatus.QUEUED, AnalysisStatus.RUNNING)


class AnalysisJob(models.Model):
    """The making of a game's (or an imported record's) analysis by one analyser version:
    one row per game and version, asked for by a player (``requested_by``) or automatically
    (a tournament final). While it is queued or running it counts as its requester's one
    analysis at a time, whichever it is of."""

    game = models.ForeignKey(Game, null=True, blank=True, on_delete=models.CASCADE,
                             related_name="analysis_jobs")
    imported = models.ForeignKey(ImportedRecord, null=True, blank=True,
                                 on_delete=models.CASCADE, related_name="analysis_jobs")
    version = models.PositiveIntegerField()
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
        related_name="+",
    )
    automatic = models.BooleanField(default=False)
    status = models.CharField(max_length=8, choices=AnalysisStatus.choices,
                              default=AnalysisStatus.QUEUED)
    done = models.PositiveIntegerField(default=0)  # decisions judged so far
    total = models.PositiveIntegerField(default=0)
    error = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    # the last sign of life (queued, started, progress): a job silent for longer than
    # ``GAMES_ANALYSIS_STALE`` is taken as lost and may be asked for again
    beat_at = models.DateTimeField()
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(fields=["game", "version"], name="analysisjob_once"),
            models.UniqueConstraint(fields=["imported", "version"],
                                    name="analysisjob_import_once"),
            models.CheckConstraint(condition=ONE_TARGET, name="analysisjob_one_target"),
            models.UniqueConstraint(
                fields=["requested_by"], condition=models.Q(status__in=["queued", "running"]),
                name="analysisjob_one_active_per_user",
            ),
        ]

    def __str__(self):
        what = (f"game {self.game_id}" if self.game_id is not None
                else f"imported record {self.imported_id}")
        return f"analysis job {self.pk} of {what}: {self.status}"
