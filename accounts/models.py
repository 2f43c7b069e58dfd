import zoneinfo

from django.contrib.auth.models import AbstractUser
from django.db import models
from django.urls import reverse


def avatar_upload_to(instance, filename):
    return f"avatars/{instance.pk or 'new'}/{filename}"


TIME_ZONE_CHOICES = [(tz, tz) for tz in sorted(zoneinfo.available_timezones())]


class User(AbstractUser):
    """A player. Username is the public handle (``/u/<username>/``)."""

    display_name = models.CharField(max_length=40, blank=True)
    country = models.CharField(max_length=2, blank=True, help_text="ISO 3166 country code")
    bio = models.CharField("short bio", max_length=280, blank=True)
    avatar = models.ImageField(upload_to=avatar_upload_to, blank=True)
    time_zone = models.CharField(max_length=64, default="UTC", choices=TIME_ZONE_CHOICES)

    class Meta:
        ordering = ["username"]

    def __str__(self):
        return self.username

    @property
    def public_name(self) -> str:
        return self.display_name or self.username

    def get_absolute_url(self):
        return reverse("accounts:profile", kwargs={"username": self.username})
