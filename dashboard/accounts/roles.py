"""The three roles, kept as Django groups, and the checks views and sockets use.

Roles are ordered: a Manager can do what a Supervisor can, a Supervisor what a Wallboard
viewer can. Superusers count as Managers.
"""

from functools import wraps

from asgiref.sync import iscoroutinefunction, sync_to_async
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied

WALLBOARD = "wallboard"
SUPERVISOR = "supervisor"
MANAGER = "manager"

GROUP_NAMES = {
    WALLBOARD: "Wallboard viewer",
    SUPERVISOR: "Supervisor",
    MANAGER: "Manager",
}
RANK = {WALLBOARD: 1, SUPERVISOR: 2, MANAGER: 3}
_ROLE_BY_GROUP = {name: role for role, name in GROUP_NAMES.items()}


def user_role(user) -> str | None:
    """The highest role the user holds, or None (signed out, inactive or no role)."""
    if not (user and user.is_authenticated and user.is_active):
        return None
    if user.is_superuser:
        return MANAGER
    roles = [
        _ROLE_BY_GROUP[g] for g in user.groups.values_list("name", flat=True) if g in _ROLE_BY_GROUP
    ]
    return max(roles, key=RANK.__getitem__, default=None)


def has_role(user, minimum: str) -> bool:
    role = user_role(user)
    return role is not None and RANK[role] >= RANK[minimum]


def role_required(minimum: str):
    """View decorator (sync or async views): sign-in page when signed out, 403 when the
    role is too narrow."""

    def refusal(request, user):
        """The answer for someone who may not use the view; None for someone who may."""
        if not user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        if not has_role(user, minimum):
            raise PermissionDenied(f"This page needs the {GROUP_NAMES[minimum]} role.")
        return None

    def decorator(view):
        if iscoroutinefunction(view):

            @wraps(view)
            async def wrapped(request, *args, **kwargs):
                user = await request.auser()
                refused = await sync_to_async(refusal)(request, user)
                return refused or await view(request, *args, **kwargs)

        else:

            @wraps(view)
            def wrapped(request, *args, **kwargs):
                return refusal(request, request.user) or view(request, *args, **kwargs)

        wrapped.minimum_role = minimum  # what the access tests read, so no page is missed
        return wrapped

    return decorator
