"""The alert tray in every signed-in page's header, right at page load."""

from dashboard.accounts.roles import RANK, SUPERVISOR, user_role

from . import tray


def alert_tray(request):
    user = getattr(request, "user", None)
    role = user_role(user)
    if role is None:
        return {}
    try:
        html = tray.current()
    except Exception:  # the tray never takes a page down with it
        html = '<div id="alert-tray" class="alert-tray" data-count="0" data-alarms="0"></div>'
    return {"alert_tray": html, "can_acknowledge": RANK[role] >= RANK[SUPERVISOR]}
