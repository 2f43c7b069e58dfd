"""Staff tools: the repeating schedules (beat creates each edition from them), and a view of
tournaments, their entries and matches. Starting, pairing and results are the services'."""
from django.contrib import admin

from .models import Entry, Match, Tournament, TournamentSchedule


@admin.register(TournamentSchedule)
class TournamentScheduleAdmin(admin.ModelAdmin):
    list_display = ("name", "mode", "format", "every_hours", "next_start", "active")
    list_filter = ("active", "format", "mode")


class EntryInline(admin.TabularInline):
    model = Entry
    extra = 0
    fields = ("user", "seed", "rating", "withdrawn", "score", "place")
    readonly_fields = fields
    can_delete = False


@admin.register(Tournament)
class TournamentAdmin(admin.ModelAdmin):
    list_display = ("name", "format", "mode", "status", "starts_at", "created_by")
    list_filter = ("status", "format", "mode")
    search_fields = ("name",)
    readonly_fields = ("status", "round", "started_at", "ends_at", "finished_at", "winner",
                       "version", "invite_token", "cancel_reason")
    inlines = [EntryInline]


@admin.register(Match)
class MatchAdmin(admin.ModelAdmin):
    list_display = ("tournament", "key", "player_a", "player_b", "status", "winner", "ending")
    list_filter = ("status",)
    raw_id_fields = ("tournament", "player_a", "player_b", "winner", "table")
