"""Forms of the lobby and room pages (validation only; services do the work)."""
from __future__ import annotations

from django import forms

from core.formonce import OnceField
from games import engine as E
from games.bots.levels import LEVEL_TABLE

from .models import Mode, Room
from .services.tables import PRIVATE_IS_CASUAL

TURN_CHOICES = [("30", "30 seconds"), ("15", "15 seconds"), ("60", "60 seconds"),
                ("0", "Untimed (only against the computer)")]
RATING_RANGES = (100, 200, 300, 500)
LEVEL_CHOICES = [(str(level.number), f"{level.number} · {level.name}") for level in LEVEL_TABLE]


class TableCreateForm(forms.Form):
    seats = forms.TypedChoiceField(label="Players", coerce=int)
    target = forms.IntegerField(
        label="Target score", required=False, min_value=50, max_value=500,
        help_text="Leave empty for the usual target of this game.",
    )
    rated = forms.BooleanField(label="Rated game", required=False)
    rating_range = forms.TypedChoiceField(
        label="Who may sit (rated games)", required=False, coerce=int, empty_value=None,
        choices=[("", "Anyone")] + [(str(n), f"Players within ±{n} of my rating")
                                    for n in RATING_RANGES],
    )
    seconds_per_turn = forms.TypedChoiceField(
        label="Time per turn", choices=TURN_CHOICES, coerce=int, initial="30"
    )
    bots = forms.TypedChoiceField(
        label="Fill the other seats with the computer", required=False, coerce=int,
        empty_value=None, choices=[("", "No, wait for people")] + LEVEL_CHOICES,
    )
    private = forms.BooleanField(
        label="Private table (only people with the invite link)", required=False,
        help_text="Private games are casual: no rating or public figure moves with them.",
    )
    once = OnceField()

    def __init__(self, *args, room: Room, **kwargs):
        super().__init__(*args, **kwargs)
        self.room = room
        mode = E.get_mode(room.mode)
        low, high = mode.min_players, mode.max_players
        low, high = max(low, room.min_seats), min(high, room.max_seats)
        self.fields["seats"].choices = [(str(n), f"{n} players") for n in range(low, high + 1)]
        self.fields["seats"].initial = str(low)
        if not room.allow_rated:
            del self.fields["rated"]
            del self.fields["rating_range"]

    def clean(self):
        data = super().clean()
        # a room of casual games: "rated" asked for is refused, as Play now's filter does
        # (the table was made casual without a word)
        if not self.room.allow_rated and (forms.BooleanField().to_python(self.data.get("rated"))
                                          or self.data.get("rating_range")):
            self.add_error(None, "Every game here is casual.")
        bots = data.get("bots")
        if data.get("seconds_per_turn") == 0 and bots is None:
            self.add_error(
                "seconds_per_turn", "Untimed games are only for playing the computer."
            )
        if data.get("rated") and bots is not None:
            self.add_error("rated", "Games against the computer are casual.")
        if data.get("rating_range") is not None and not data.get("rated"):
            self.add_error("rating_range", "A rating range is only for rated games.")
        if data.get("rated") and data.get("private"):
            self.add_error("private", PRIVATE_IS_CASUAL)
        return data


class RoomFilterForm(forms.Form):
    """Which of a room's tables to list (a GET form: the page and its JSON read the same
    query). An empty choice is "any"; a choice the room does not offer is an error."""

    rated = forms.ChoiceField(label="Rated", required=False, choices=[
        ("", "Rated or casual"), ("rated", "Rated"), ("casual", "Casual")])
    time = forms.TypedChoiceField(
        label="Time per turn", required=False, coerce=int, empty_value=None,
        choices=[("", "Any time")] + [(v, label) for v, label in TURN_CHOICES if v != "0"])
    seats = forms.TypedChoiceField(label="Players", required=False, coerce=int,
                                   empty_value=None)

    def __init__(self, *args, room: Room, **kwargs):
        kwargs.setdefault("auto_id", "filter_%s")  # (the create form's fields share names)
        super().__init__(*args, **kwargs)
        mode = E.get_mode(room.mode)
        low, high = max(mode.min_players, room.min_seats), min(mode.max_players, room.max_seats)
        self.fields["seats"].choices = [("", "Any number of players")] + [
            (str(n), f"{n} players") for n in range(low, high + 1)]
        self.not_offered = {}
        if low == high:
            del self.fields["seats"]
            self.not_offered["seats"] = f"Every game here is for {low} players."
        if not room.allow_rated:
            del self.fields["rated"]
            self.not_offered["rated"] = "Every game here is casual."

    def clean(self):
        data = super().clean()
        for name, why in self.not_offered.items():
            if self.data.get(name):
                self.add_error(None, why)
        return data

    def filters(self) -> dict:
        """The table filters for ``games.selectors.room_tables`` (call after ``is_valid``)."""
        data = self.cleaned_data
        rated = data.get("rated")
        return {
            "rated": {"rated": True, "casual": False}.get(rated or ""),
            "seconds_per_turn": data.get("time"),
            "seat_count": data.get("seats"),
        }

    def chosen(self) -> dict | None:
        """The filters for the room's lists: None when none is chosen (or a value is bad)."""
        if not (self.is_bound and self.is_valid()):
            return None
        filters = self.filters()
        return filters if any(v is not None for v in filters.values()) else None


class PlayComputerForm(forms.Form):
    mode = forms.ChoiceField(label="Game", choices=Mode.choices, initial=Mode.CLASSIC)
    level = forms.TypedChoiceField(label="Level", choices=LEVEL_CHOICES, coerce=int,
                                   initial="2")
    seats = forms.TypedChoiceField(
        label="Players (Rummy)", coerce=int, required=False, empty_value=2,
        choices=[("2", "2 players"), ("3", "3 players"), ("4", "4 players")],
    )
    once = OnceField()

    def clean(self):
        data = super().clean()
        if data.get("mode") != Mode.RUMMY and data.get("seats", 2) != 2:
            self.add_error("seats", "Gin is for two players.")
        return data


class AddBotForm(forms.Form):
    seat = forms.IntegerField(min_value=0, max_value=3)
    level = forms.TypedChoiceField(choices=LEVEL_CHOICES, coerce=int)


class SitForm(forms.Form):
    seat = forms.IntegerField(min_value=0, max_value=3, required=False)
    invite = forms.CharField(max_length=64, required=False)


RESULT_CHOICES = [("", "Any result"), ("win", "Won"), ("loss", "Lost"), ("tie", "Tied")]
RATED_CHOICES = [("", "Rated or casual"), ("rated", "Rated"), ("casual", "Casual")]


class ArchiveFilterForm(forms.Form):
    """Filters of the game archive (all optional). ``opponent`` is a username, ``computer``
    for any computer level, or a level's name (``easy`` ... ``expert``)."""

    mode = forms.ChoiceField(choices=[("", "Any mode"), *Mode.choices], required=False)
    opponent = forms.CharField(max_length=150, required=False,
                               help_text="A username, “computer”, or a computer level: "
                               "easy, medium, hard, expert")
    result = forms.ChoiceField(choices=RESULT_CHOICES, required=False)
    rated = forms.ChoiceField(choices=RATED_CHOICES, required=False, label="Rated")
    date_from = forms.DateField(required=False, label="From",
                                widget=forms.DateInput(attrs={"type": "date"}))
    date_to = forms.DateField(required=False, label="To",
                              widget=forms.DateInput(attrs={"type": "date"}))

    def clean_opponent(self):
        return self.cleaned_data["opponent"].strip().lstrip("@")

    def clean(self):
        data = super().clean()
        start, end = data.get("date_from"), data.get("date_to")
        if start and end and start > end:
            raise forms.ValidationError("The “from” date is after the “to” date.")
        return data


RECORD_MAX_BYTES = 1_000_000


class RecordImportForm(forms.Form):
    """A game record file: ``ginsite-game/1`` or ``gin-record/1`` JSON, or the text form."""

    record = forms.FileField(label="Record file", help_text="JSON or text, at most 1 MB")

    def clean_record(self):
        f = self.cleaned_data["record"]
        if f.size > RECORD_MAX_BYTES:
            raise forms.ValidationError("The file is larger than 1 MB: not a game record.")
        try:
            return f.read().decode("utf-8-sig")
        except UnicodeDecodeError:
            raise forms.ValidationError("The file is not UTF-8 text: not a game record.") from None
