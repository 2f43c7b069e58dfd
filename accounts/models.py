import secrets

from django.contrib.auth.models import AbstractUser
from django.db import models
from django.urls import reverse

from .timezones import DEFAULT_TIME_ZONE
from .validators import validate_bio, validate_country, validate_display_name, validate_time_zone


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

    class Meta:
        ordering = ["username"]

    def __str__(self):
        return self.username

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
