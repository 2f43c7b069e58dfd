"""Events published by ``apply``: each says who may see it."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

__all__ = ["Event", "Visibility"]


class Visibility(StrEnum):
    PUBLIC = "public"  # every seat and every spectator
    SEAT = "seat"  # only ``event.seat``
    SPECTATORS = "spectators"  # spectators only (not the seated players)


@dataclass(frozen=True, slots=True)
class Event:
    """``kind`` names what happened; ``data`` is a JSON-safe dict."""

    kind: str
    data: dict[str, Any] = field(default_factory=dict)
    visibility: Visibility = Visibility.PUBLIC
    seat: int | None = None

    def visible_to(self, seat: int | None) -> bool:
        """May ``seat`` see this event? ``None`` means a spectator."""
        if self.visibility is Visibility.PUBLIC:
            return True
        if self.visibility is Visibility.SEAT:
            return seat is not None and seat == self.seat
        return seat is None

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "data": self.data,
            "visibility": self.visibility.value,
            "seat": self.seat,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Event:
        return cls(
            d["kind"], d.get("data", {}), Visibility(d.get("visibility", "public")), d.get("seat")
        )
