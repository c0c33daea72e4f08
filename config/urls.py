from django.contrib import admin
from django.urls import include, path

from dashboard import health
from dashboard.live import views as live_views

urlpatterns = [
    path("", live_views.home, name="home"),
    path("healthz", health.healthz, name="healthz"),
    path("readyz", health.readyz, name="readyz"),
    path("accounts/", include("django.contrib.auth.urls")),
    path("admin/", admin.site.urls),
    path("", include("dashboard.quality.urls")),
    path("", include("dashboard.reports.urls")),
    path("", include("dashboard.wallboard.urls")),
]
