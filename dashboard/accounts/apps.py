from django.apps import AppConfig
from django.contrib.admin import apps as admin_apps


class AccountsConfig(AppConfig):
    default = True
    name = "dashboard.accounts"
    label = "accounts"

    def ready(self):
        from . import audit, sockets

        audit.connect_signals()
        sockets.connect_signals()


class ManagerAdminConfig(admin_apps.AdminConfig):
    """Django's admin, open to the Manager role only."""

    default = False

    default_site = "dashboard.accounts.admin_site.ManagerAdminSite"
