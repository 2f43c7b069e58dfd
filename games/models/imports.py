"""Imported game records kept for their importer (docs/records.md, "Imported records")."""
from __future__ import annotations

from django.conf import settings
from django.db import models
from django.urls import reverse

from .tables import Mode

# ------------------------------------------------------------------------ imports
#
# A record file uploaded on /games/import/ by a signed-in person is kept (once per person
# and record content) so that it can be found again and analysed. It is private data: its
# players are names in a file, not accounts, and only its importer ever sees it.


class ImportedRecord(models.Model):
    """A record file a person imported: the engine record as read and replayed (its
    ``gin-record/1`` JSON), the names shown for its seats, and a few facts for the list."""

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                              related_name="imported_records")
    # sha256 of the canonical JSON of the engine record and the names: the same record,
    # imported again (as text or JSON), is the same row
    digest = models.CharField(max_length=64)
    filename = models.CharField(max_length=120, blank=True)
    mode = models.CharField(max_length=16, choices=Mode.choices)
    names = models.JSONField(default=list)
    moves = models.PositiveIntegerField(default=0)
    finished = models.BooleanField(default=False)
    totals = models.JSONField(default=list)
    # who forfeited and why, as the site's JSON of a forfeited game says (``{"seat",
    # "reason"}``; ``records.record_import_with_forfeit``); null when the file does not say
    forfeit = models.JSONField(null=True, blank=True)
    # the seats the computer played on for a person who had left, as the site's JSON says
    # (``[{"seat", "from_ply", "name"}]``; ``records.record_import_with_forfeit``): the
    # replay names the computer from there
    stand_ins = models.JSONField(default=list, blank=True)
    record = models.JSONField()  # the engine's gin-record/1 JSON
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["owner", "digest"], name="importedrecord_once"),
        ]
        indexes = [models.Index(fields=["owner", "-created_at"], name="importedrecord_owner")]

    def __str__(self):
        return f"imported record {self.pk} of user {self.owner_id}: {self.filename}"

    def get_absolute_url(self):
        return reverse("games:imported", kwargs={"record_id": self.pk})

    @property
    def title(self) -> str:
        return self.filename or f"Record {self.pk}"


# ------------------------------------------------------------------- offline checks
#
# An offline game against the Expert is stored only once the server has played every one of
# the Expert's moves again (about 0.05-0.1 s a move, seconds a game: a task on the analyses'
# queue, not the upload's request). Until then its upload waits here, and nothing of it is in
# the archive, the statistics or any page (docs/offline.md, "Sync").


class OfflineCheck(models.Model):
    """An uploaded offline record waiting for the check of its Expert moves (``payload`` is
    the ``ginsite-game/1`` JSON as posted). ``error`` and ``error_code`` are the refusal once
    the check failed (kept, so that the same upload again is answered with it); empty while
    waiting. The row goes once the game is stored."""

    offline_id = models.UUIDField(unique=True)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                              related_name="offline_checks")
    payload = models.JSONField()
    error = models.CharField(max_length=200, blank=True)
    error_code = models.CharField(max_length=20, blank=True)
    queued_at = models.DateTimeField()
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self):
        return f"offline check {self.offline_id} of user {self.owner_id}"
