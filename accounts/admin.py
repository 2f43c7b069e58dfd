from django import forms
from django.contrib import admin
from django.contrib.auth.admin import UserAdmin
from django.contrib.auth.forms import UserChangeForm

from .countries import COUNTRY_CHOICES
from .models import User
from .timezones import time_zone_choices


class SiteUserChangeForm(UserChangeForm):
    country = forms.ChoiceField(choices=[("", "—")] + COUNTRY_CHOICES, required=False)
    time_zone = forms.ChoiceField(choices=time_zone_choices)

    class Meta(UserChangeForm.Meta):
        model = User


@admin.register(User)
class SiteUserAdmin(UserAdmin):
    form = SiteUserChangeForm
    fieldsets = UserAdmin.fieldsets + (
        ("Profile", {"fields": ("display_name", "country", "bio", "avatar", "time_zone")}),
    )
    list_display = ("username", "email", "display_name", "country", "is_staff", "date_joined")
    search_fields = ("username", "email", "display_name")
