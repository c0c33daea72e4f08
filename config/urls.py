from django.contrib import admin
from django.contrib.auth import views as auth
from django.urls import include, path

from dashboard.accounts import views as account_views
from dashboard.alerts.notify import post_now
from dashboard.live import health, scrape
from dashboard.live import views as live_views
from dashboard.normal import views as normal_views
from dashboard.normal.on_charts import floor_charts

# Not all of django.contrib.auth.urls: people are added by a manager (`adduser`, the
# admin) and there is no mail to reset a password by.
accounts = [
    path("login/", auth.LoginView.as_view(), name="login"),
    path("logout/", auth.LogoutView.as_view(), name="logout"),
    path("password_change/", auth.PasswordChangeView.as_view(), name="password_change"),
    path(
        "password_change/done/",
        auth.PasswordChangeDoneView.as_view(),
        name="password_change_done",
    ),
    path("preferences/", account_views.preferences, name="preferences"),
    path("preferences/theme/", account_views.set_theme, name="set-theme"),
    path("preferences/teams/", account_views.set_teams, name="set-teams"),
    path("preferences/monitor-dial/", account_views.set_monitor_dial, name="set-monitor-dial"),
    path("preferences/views/", account_views.save_view, name="save-view"),
    path("preferences/views/<int:pk>/delete/", account_views.delete_view, name="delete-view"),
]

urlpatterns = [
    path("", live_views.home, {"charts": floor_charts}, name="home"),
    path("healthz", health.healthz, name="healthz"),
    path("readyz", health.readyz, name="readyz"),
    path("metrics", scrape.scrape, name="metrics"),
    path("accounts/", include(accounts)),
    path("admin/", admin.site.urls),
    path("", include("dashboard.quality.urls")),
    path("", include("dashboard.reports.urls")),
    path("", include("dashboard.wallboard.urls")),
    path("", include("dashboard.alerts.urls")),
    path("", include("dashboard.interventions.urls")),
    path("", include("dashboard.drilldown.urls")),
    path("", include("dashboard.replay.urls")),
    path("", include("dashboard.inbound.urls")),
    path("", include("dashboard.normal.urls")),
    path(
        "normal/day/<str:day>/send/",
        normal_views.send,
        {"post": post_now},
        name="normal-day-send",
    ),
]
