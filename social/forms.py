"""The invitation form that opens a table (validation only; the services do the work)."""
from __future__ import annotations

from django import forms

from core.formonce import OnceField

from .services import CHALLENGE_TURN_SECONDS
from .tables import private_is_casual


class NewTableInvitationForm(forms.Form):
    """Open a table and invite a contact to it (the invitations page, when the contact's
    "Invite" finds no table of yours waiting)."""

    to = forms.ChoiceField(label="Contact")
    mode = forms.ChoiceField(label="Game")
    seats = forms.TypedChoiceField(label="Players", coerce=int, initial="2")
    target = forms.IntegerField(
        label="Target score", required=False, min_value=50, max_value=500,
        help_text="Leave empty for the usual target of this game.",
    )
    seconds_per_turn = forms.TypedChoiceField(
        label="Time per turn", coerce=int, initial="30",
        choices=[(str(s), f"{s} seconds") for s in CHALLENGE_TURN_SECONDS],
    )
    rated = forms.BooleanField(label="Rated game", required=False)
    private = forms.BooleanField(
        label="Private table (only people with its invite link can watch or sit)",
        required=False, initial=True,
        help_text="Private games are casual: untick it for a rated game.",
    )
    once = OnceField()

    def __init__(self, *args, contacts: list[tuple[str, str]], modes: list[tuple[str, str]],
                 seat_counts: dict[str, tuple[int, int]], **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["to"].choices = contacts
        self.fields["mode"].choices = modes
        self.names, self.seat_counts = dict(modes), seat_counts
        counts = sorted({n for low, high in seat_counts.values() for n in range(low, high + 1)})
        self.fields["seats"].choices = [(str(n), f"{n} players") for n in counts]

    def clean(self):
        data = super().clean()
        mode, seats = data.get("mode"), data.get("seats")
        if mode in self.seat_counts and seats is not None:
            low, high = self.seat_counts[mode]
            if not low <= seats <= high:
                players = f"{low} players" if low == high else f"{low} to {high} players"
                self.add_error("seats", f"{self.names[mode]} is for {players}.")
        if data.get("rated") and data.get("private"):
            self.add_error("private", private_is_casual())
        return data
