import secrets
from typing import Any

from django.contrib.auth.models import AbstractUser
from django.db import models
from django.urls import reverse

from core.text import skeleton

from .timezones import DEFAULT_TIME_ZONE
from .validators import validate_bio, validate_country, validate_display_name, validate_time_zone

# (a name of 150 characters can grow under NFKC: its look is cut there, which only ever
# makes two very long names compare alike)
LOOK_MAX = 200


def avatar_upload_to(instance, filename):
    """A fresh random name per upload, so browsers never show a stale cached picture."""
    extension = filename.rsplit(".", 1)[-1].lower() if "." in filename else "webp"
    return f"avatars/{instance.pk or 'new'}/{secrets.token_hex(8)}.{extension}"


class User(AbstractUser):
    """A player. Username is the public handle (``/u/<username>/``)."""

    display_name = models.CharField(max_length=40, blank=True, validators=[validate_display_name])
    country = models.CharField(
        max_length=2, blank=True, help_text="ISO 3166 country code", validators=[validate_country]
    )
    bio = models.CharField("short bio", max_length=280, blank=True, validators=[validate_bio])
    avatar = models.ImageField(upload_to=avatar_upload_to, blank=True)
    time_zone = models.CharField(
        max_length=64, default=DEFAULT_TIME_ZONE, validators=[validate_time_zone]
    )

    # What tells this player that the site needs them (your turn, a tournament match ready,
    # a new message) while they look elsewhere: static/js/attention.js, /settings/alerts/.
    alert_sound = models.BooleanField("sound", default=True)
    alert_vibrate = models.BooleanField("vibration", default=True)
    alert_notifications = models.BooleanField("notifications", default=True)
    alert_title = models.BooleanField("tab title", default=True)

    # Bot accounts (docs/bot-api.md): a program plays through the API with a token of scope
    # ``bot:play``; it never sits at a table as a person does and is rated in its own pool.
    # Becoming a bot is irreversible (accounts.services.bot_account_convert).
    is_bot = models.BooleanField("bot account", default=False)
    bots_may_challenge = models.BooleanField(
        "Computer programs (bot accounts) may challenge me", default=True
    )

    # What the username and the display name look like (core.text.skeleton), kept with them so
    # that a name drawn like another player's is refused whichever came first ("bоb" with a
    # Cyrillic "о" beside bob): ``save`` writes them.
    username_look = models.CharField(max_length=LOOK_MAX, blank=True, db_index=True,
                                     editable=False)
    display_look = models.CharField(max_length=LOOK_MAX, blank=True, db_index=True,
                                    editable=False)
    # ... and with a capital "I" read as the small "l" it looks like (``skeleton(...,
    # capital_i=True)``): a name is taken when either look is another's ("aIice" beside alice)
    username_shape = models.CharField(max_length=LOOK_MAX, blank=True, db_index=True,
                                      editable=False)
    display_shape = models.CharField(max_length=LOOK_MAX, blank=True, db_index=True,
                                     editable=False)

    class Meta:
        ordering = ["username"]

    def __str__(self):
        return self.username

    def save(self, *args: Any, **kwargs: Any) -> None:
        self.username_look = skeleton(self.username)[:LOOK_MAX]
        self.username_shape = skeleton(self.username, capital_i=True)[:LOOK_MAX]
        shown = self.display_name
        self.display_look = skeleton(shown)[:LOOK_MAX] if shown else ""
        self.display_shape = skeleton(shown, capital_i=True)[:LOOK_MAX] if shown else ""
        fields = kwargs.get("update_fields")
        if fields is not None:
            fields = set(fields)
            if "username" in fields:
                fields |= {"username_look", "username_shape"}
            if "display_name" in fields:
                fields |= {"display_look", "display_shape"}
            kwargs["update_fields"] = fields
        super().save(*args, **kwargs)

    @property
    def alert_preferences(self) -> dict[str, bool]:
        """The alerts this player wants, as the page's script reads them."""
        return {
            "sound": self.alert_sound, "vibrate": self.alert_vibrate,
            "notifications": self.alert_notifications, "title": self.alert_title,
        }

    @property
    def public_name(self) -> str:
        return self.display_name or self.username

    def get_absolute_url(self):
        return reverse("accounts:profile", kwargs={"username": self.username})


class ApiToken(models.Model):
    """A personal API token (docs/bot-api.md, "Tokens"). The secret is shown once when it
    is made; only its SHA-256 is kept (``key_hash``), with a short visible ``prefix`` so its
    owner can tell tokens apart. A revoked token stays listed, refused for ever."""

    SCOPE_BOT_PLAY = "bot:play"
    SCOPE_GAMES_READ = "games:read"
    SCOPES = {
        SCOPE_BOT_PLAY: "Play as a bot (bot accounts only)",
        SCOPE_GAMES_READ: "Read and export my games, private ones included",
    }

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=60)
    scopes = models.JSONField(default=list)
    key_hash = models.CharField(max_length=64, unique=True)
    prefix = models.CharField(max_length=16)
    created = models.DateTimeField(auto_now_add=True)
    last_used = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created", "-id"]
        indexes = [models.Index(fields=["user", "revoked_at"], name="apitoken_user_live")]

    def __str__(self):
        return f"{self.name} ({self.prefix}…)"

    @property
    def is_revoked(self) -> bool:
        return self.revoked_at is not None

    def has_scope(self, scope: str) -> bool:
        return scope in (self.scopes or [])
