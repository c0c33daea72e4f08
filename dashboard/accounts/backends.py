"""Managers may change the dashboard's own records in the admin without per-model grants."""

from django.contrib.auth.backends import ModelBackend

from .roles import MANAGER, has_role

MANAGED_APPS = {
    "accounts",
    "alerts",
    "axes",
    "live",
    "quality",
    "wallboard",
    "interventions",
}  # axes: lockouts


class ManagerPermissionBackend(ModelBackend):
    def has_perm(self, user_obj, perm, obj=None):
        app_label = perm.split(".", 1)[0]
        return app_label in MANAGED_APPS and has_role(user_obj, MANAGER)

    def has_module_perms(self, user_obj, app_label):
        return app_label in MANAGED_APPS and has_role(user_obj, MANAGER)
