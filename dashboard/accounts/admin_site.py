"""The admin site behind the Manager role: a signed-in person without it gets a plain 403."""

from functools import wraps

from django.contrib.admin import AdminSite
from django.contrib.admin.exceptions import DisallowedModelAdminToField
from django.contrib.admin.options import TO_FIELD_VAR
from django.core.exceptions import PermissionDenied

from .roles import MANAGER, has_role

REFUSAL = "The admin needs the Manager role."


class ManagerAdminSite(AdminSite):
    site_header = "Dashboard administration"

    def has_permission(self, request):
        return has_role(request.user, MANAGER)

    def _refuse_signed_in_outsiders(self, view):
        @wraps(view)
        def guarded(request, *args, **kwargs):
            if request.user.is_authenticated and not self.has_permission(request):
                raise PermissionDenied(REFUSAL)
            if "" in (request.GET.get(TO_FIELD_VAR), request.POST.get(TO_FIELD_VAR)):
                # Django's admin skips its check of an empty _to_field, then fails on it (500).
                raise DisallowedModelAdminToField("_to_field must name a field")
            return view(request, *args, **kwargs)

        return guarded

    def admin_view(self, view, cacheable=False):
        return self._refuse_signed_in_outsiders(super().admin_view(view, cacheable))

    def login(self, request, extra_context=None):
        return self._refuse_signed_in_outsiders(super().login)(request, extra_context)
