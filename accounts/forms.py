from django import forms

from .avatars import ALLOWED_FORMATS, MAX_AVATAR_BYTES
from .countries import COUNTRY_CHOICES
from .models import User
from .timezones import time_zone_choices

_ACCEPT = ",".join(f"image/{fmt.lower()}" for fmt in ALLOWED_FORMATS)


class ProfileForm(forms.Form):
    """Parses the profile edit page. Checking the picture itself is the service's job."""

    display_name = forms.CharField(
        max_length=User._meta.get_field("display_name").max_length,
        required=False,
        help_text=(
            "Shown to other players instead of your username. "
            "Leave empty to use your username."
        ),
        widget=forms.TextInput(attrs={"autocomplete": "nickname"}),
    )
    country = forms.ChoiceField(
        choices=[("", "Not shown")] + COUNTRY_CHOICES,
        required=False,
        widget=forms.Select(attrs={"autocomplete": "country"}),
    )
    time_zone = forms.ChoiceField(
        choices=time_zone_choices,
        help_text="Times on the site are shown in this zone; others see your local time.",
        # site.js offers the device's own zone next to the list.
        widget=forms.Select(attrs={"data-time-zone-select": ""}),
    )
    bio = forms.CharField(
        label="Short bio",
        max_length=User._meta.get_field("bio").max_length,
        required=False,
        widget=forms.Textarea(attrs={"rows": 4}),
        help_text="Up to 280 characters, shown on your public profile.",
    )
    avatar = forms.FileField(
        label="New picture",
        required=False,
        widget=forms.FileInput(attrs={"accept": _ACCEPT}),
        help_text=(
            f"JPEG, PNG, WebP or GIF, up to {MAX_AVATAR_BYTES // (1024 * 1024)} MB. "
            "It is cropped to a square."
        ),
    )
    remove_avatar = forms.BooleanField(label="Remove my picture", required=False)

    def clean_avatar(self):
        upload = self.cleaned_data.get("avatar")
        # Refuse an oversized file before anyone decodes it; the service checks the rest.
        if upload is not None and upload.size > MAX_AVATAR_BYTES:
            raise forms.ValidationError(
                f"The picture is too large ({upload.size / 1024 / 1024:.1f} MB). "
                f"The limit is {MAX_AVATAR_BYTES // (1024 * 1024)} MB.",
                code="too_large",
            )
        return upload

    def clean(self):
        cleaned = super().clean()
        if cleaned.get("avatar") is not None and cleaned.get("remove_avatar"):
            self.add_error(
                "avatar",
                "Choose either a new picture or removing the current one, not both.",
            )
        return cleaned


class AlertPreferencesForm(forms.Form):
    """The alerts page: each kind of alert on or off (a checkbox left out means off)."""

    alert_title = forms.BooleanField(
        label="Show it in the tab's title", required=False,
        help_text="“Your turn - Gin Rummy” while it is your turn.",
    )
    alert_sound = forms.BooleanField(
        label="Play a short sound", required=False,
        help_text="When the site's tab is in the background.",
    )
    alert_vibrate = forms.BooleanField(
        label="Vibrate (phones)", required=False,
        help_text="A short buzz when it is your turn, a match is ready or a message arrives.",
    )
    alert_notifications = forms.BooleanField(
        label="Show a notification", required=False,
        help_text="When the tab is in the background, once you allow notifications for this "
                  "site in this browser (the button below asks).",
    )


class ApiTokenForm(forms.Form):
    """A new personal API token: a name and its scopes (``bot:play`` only on bot accounts).
    The service checks the rest (the count of tokens, the name's length again)."""

    name = forms.CharField(
        label="Name", max_length=60,
        help_text="So you can tell your tokens apart, e.g. “my bot on the lab server”.",
    )
    scopes = forms.MultipleChoiceField(
        label="What it may do", widget=forms.CheckboxSelectMultiple,
        error_messages={
            "required": "Choose at least one scope.",
            "invalid_choice": "“%(value)s” is not a scope this account can give a token "
                              "(bot:play is for bot accounts only).",
        },
    )

    def __init__(self, *args, user: User, **kwargs):
        super().__init__(*args, **kwargs)
        from .models import ApiToken

        self.fields["scopes"].choices = [
            (scope, f"{scope}: {label}") for scope, label in ApiToken.SCOPES.items()
            if user.is_bot or scope != ApiToken.SCOPE_BOT_PLAY
        ]
        if user.is_bot:  # (every scope is a bot's: the words for a person do not apply)
            self.fields["scopes"].error_messages["invalid_choice"] = (
                "“%(value)s” is not a scope: choose among "
                + ", ".join(ApiToken.SCOPES) + ".")


class BotsMayChallengeForm(forms.Form):
    bots_may_challenge = forms.BooleanField(
        label=User._meta.get_field("bots_may_challenge").verbose_name, required=False,
        help_text="Bot accounts are programs written by other players. When this is off, "
                  "no bot can challenge you (you can still challenge them).",
    )


class BotConversionForm(forms.Form):
    """The confirmation of becoming a bot: the account's username typed again."""

    confirm_username = forms.CharField(label="Type your username to confirm", max_length=150)

    def __init__(self, *args, user: User, **kwargs):
        super().__init__(*args, **kwargs)
        self.user = user

    def clean_confirm_username(self):
        typed = self.cleaned_data["confirm_username"].strip()
        if typed != self.user.username:
            raise forms.ValidationError(
                "That is not this account's username: nothing was changed."
            )
        return typed


class AccountCloseForm(forms.Form):
    """The confirmation of closing an account: its password typed again."""

    password = forms.CharField(
        label="Your password", max_length=4096, strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
    )

    def __init__(self, *args, user: User, **kwargs):
        super().__init__(*args, **kwargs)
        self.user = user

    def clean_password(self):
        password = self.cleaned_data["password"]
        if not self.user.check_password(password):
            raise forms.ValidationError("That is not your password: nothing was changed.")
        return password
