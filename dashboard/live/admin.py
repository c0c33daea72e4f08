from django.contrib import admin

from .models import Thresholds


@admin.register(Thresholds)
class ThresholdsAdmin(admin.ModelAdmin):
    def has_add_permission(self, request):
        return super().has_add_permission(request) and not Thresholds.objects.exists()

    def has_delete_permission(self, request, obj=None):
        return False
