from django.contrib import admin

from .models import Alert, AlertDelivery, Rule


@admin.register(Rule)
class RuleAdmin(admin.ModelAdmin):
    list_display = ("name", "metric", "scope", "scope_value", "warn", "alarm", "hold_s", "clear_s")
    list_filter = ("metric", "enabled")


@admin.register(Alert)
class AlertAdmin(admin.ModelAdmin):
    list_display = ("text", "level", "raised_at", "acknowledged_at", "cleared_at")
    list_filter = ("level",)
    readonly_fields = [f.name for f in Alert._meta.fields]

    def has_add_permission(self, request):
        return False


@admin.register(AlertDelivery)
class AlertDeliveryAdmin(admin.ModelAdmin):
    list_display = ("alert", "transition", "attempts", "status_code", "delivered", "created_at")
    readonly_fields = [f.name for f in AlertDelivery._meta.fields]

    def has_add_permission(self, request):
        return False
