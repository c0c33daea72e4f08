from django.contrib import admin

from .models import Intervention


@admin.register(Intervention)
class InterventionAdmin(admin.ModelAdmin):
    """The audit is read-only: what was asked and answered is not edited afterwards."""

    list_display = ("at", "by_name", "action", "asked", "call_id", "agent_id", "outcome")
    list_filter = ("action", "outcome")
    search_fields = ("by_name", "call_id", "agent_id", "session_id")

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False  # the retention purge removes rows, nobody else
