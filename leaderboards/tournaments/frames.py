"""The JSON that tournaments send: the ``tournament`` notices on the notification socket
(docs/protocol.md) and the live endpoint's state (``GET /tournaments/<id>/live/``). Built
here only, so a notice has one shape wherever it comes from."""
from __future__ import annotations

from typing import Any

from .models import Tournament


def tournament_ref(t: Tournament) -> dict[str, Any]:
    return {"id": t.pk, "name": t.name, "url": t.get_absolute_url()}


def notice(event: str, t: Tournament, **extra: Any) -> dict[str, Any]:
    """A ``tournament`` notice: ``started``, ``finished`` (with ``reason`` when a Swiss ended
    before its last round), ``cancelled`` (with ``reason``)."""
    return {"type": "tournament", "event": event, "tournament": tournament_ref(t), **extra}


def finished_notice(t: Tournament) -> dict[str, Any]:
    """The tournament has finished; a Swiss that ended before its last round says why (its
    players were waiting for a round that never came)."""
    if not t.ended_early:
        return notice("finished", t)
    return notice("finished", t, reason=f"It ended after round {t.rounds} of {t.rounds_set}: "
                                        f"{t.get_ended_early_display()}.")


def match_notice(t: Tournament, *, table: Any, opponent: dict[str, Any],
                 round: int) -> dict[str, Any]:
    """Your match is ready: the table's link and your opponent (``social.notify.user_ref``)."""
    return notice("match", t, table={"id": table.pk, "url": table.get_absolute_url()},
                  opponent=opponent, round=round)


def waiting_notice(t: Tournament, *, opponent: dict[str, Any], round: int) -> dict[str, Any]:
    """Your match is paired and waits: one of its players is in a game elsewhere (the
    ``match`` notice follows when its table opens)."""
    return notice("waiting", t, opponent=opponent, round=round)


def live_state(t: Tournament) -> dict[str, Any]:
    """The live endpoint's answer (the page's ``html`` is added by the view when stale)."""
    return {"id": t.pk, "version": t.version, "status": t.status}
