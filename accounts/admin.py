from django.contrib import admin
from django.contrib.auth.admin import UserAdmin

from .models import User


@admin.register(User)
class SiteUserAdmin(UserAdmin):
    fieldsets = UserAdmin.fieldsets + (
        ("Profile", {"fields": ("display_name", "country", "bio", "avatar", "time_zone")}),
    )
    list_display = ("username", "email", "display_name", "country", "is_staff", "date_joined")
