from django import forms
from django.contrib import admin
from django.contrib.auth.admin import UserAdmin
from django.contrib.auth.forms import UserChangeForm

from .countries import COUNTRY_CHOICES
from .models import ApiToken, User
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
        # is_bot is shown, not edited: becoming a bot is the owner's irreversible choice,
        # refused once the account has games (accounts.services.bot_account_convert)
        ("Bots", {"fields": ("is_bot", "bots_may_challenge")}),
    )
    readonly_fields = ("is_bot",)
    list_display = ("username", "email", "display_name", "country", "is_bot", "is_staff",
                    "date_joined")
    list_filter = (*UserAdmin.list_filter, "is_bot")
    search_fields = ("username", "email", "display_name")


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    """Tokens are made by their owners (the secret is shown to them once); staff can see
    them and revoke one (set ``revoked_at``), never read a secret (only its hash is kept)."""

    list_display = ("name", "user", "prefix", "scopes", "created", "last_used", "revoked_at")
    list_filter = ("revoked_at",)
    search_fields = ("name", "prefix", "user__username")
    readonly_fields = ("user", "name", "scopes", "key_hash", "prefix", "created", "last_used")
    fields = ("user", "name", "scopes", "prefix", "key_hash", "created", "last_used",
              "revoked_at")

    def has_add_permission(self, request):
        return False
