from django.contrib import admin

from .forms import RuleForm
from .models import Alert, AlertDelivery, Rule


@admin.register(Rule)
class RuleAdmin(admin.ModelAdmin):
    form = RuleForm  # limits read and written as 10:00 and 80%
    list_display = ("name", "metric", "scope", "scope_value", "warning", "alarm_limit", "hold_s")
    list_filter = ("metric", "enabled")

    @admin.display(description="warning limit")
    def warning(self, rule):
        return rule.warn_text or "–"

    @admin.display(description="alarm limit")
    def alarm_limit(self, rule):
        return rule.alarm_text or "–"


@admin.register(Alert)
class AlertAdmin(admin.ModelAdmin):
    list_display = ("text", "level", "raised_at", "acknowledged_at", "cleared_at")
    list_filter = ("level",)
    readonly_fields = [f.name for f in Alert._meta.fields]

    def has_add_permission(self, request):
        return False


@admin.register(AlertDelivery)
class AlertDeliveryAdmin(admin.ModelAdmin):
    list_display = (
        "alert",
        "transition",
        "transitions",
        "attempts",
        "status_code",
        "delivered",
        "created_at",
    )
    readonly_fields = [f.name for f in AlertDelivery._meta.fields]

    def has_add_permission(self, request):
        return False
