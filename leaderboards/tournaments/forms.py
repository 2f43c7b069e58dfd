"""The create form (validation of shapes only; the service checks the rules)."""
from __future__ import annotations

from datetime import timedelta

from django import forms
from django.utils import timezone

from core.formonce import OnceField
from games.models import Mode

from .models import Format

TURN_CHOICES = [("30", "30 seconds"), ("15", "15 seconds"), ("60", "60 seconds")]


class TournamentCreateForm(forms.Form):
    name = forms.CharField(max_length=80, min_length=3)
    mode = forms.ChoiceField(label="Game", choices=Mode.choices, initial=Mode.CLASSIC)
    format = forms.ChoiceField(choices=Format.choices, initial=Format.SINGLE)
    target = forms.IntegerField(
        label="Target score", required=False, min_value=50, max_value=500,
        help_text="Points to win a match (one game). Empty: the game's usual target.",
    )
    capacity = forms.IntegerField(label="Most players", min_value=2, max_value=1000, initial=8)
    rounds = forms.IntegerField(label="Rounds (Swiss)", required=False, min_value=1,
                                max_value=15)
    duration_minutes = forms.IntegerField(label="Duration in minutes (arena)", required=False,
                                          min_value=10, max_value=240)
    seconds_per_turn = forms.TypedChoiceField(label="Time per turn", choices=TURN_CHOICES,
                                              coerce=int, initial="30")
    starts_at = forms.DateTimeField(
        label="Start", widget=forms.DateTimeInput(attrs={"type": "datetime-local"},
                                                  format="%Y-%m-%dT%H:%M"),
        help_text="In your time zone.",
    )
    entry_opens_at = forms.DateTimeField(
        label="Entries open", required=False,
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M"),
        help_text="Empty: at once.",
    )
    rating_min = forms.IntegerField(label="Rating floor", required=False, min_value=0,
                                    max_value=4000)
    rating_max = forms.IntegerField(label="Rating ceiling", required=False, min_value=0,
                                    max_value=4000)
    private = forms.BooleanField(label="Private (only people with the invite link)",
                                 required=False,
                                 help_text="A private tournament's games are casual.")
    once = OnceField()

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if not self.is_bound:
            start = timezone.localtime() + timedelta(minutes=30)
            self.initial["starts_at"] = start.replace(second=0, microsecond=0)
