"""The alert tray in every signed-in page's header, right at page load, and whose alerts it
shows: the person's teams (a page showing other teams passes its own `alert_teams`)."""

from dashboard.accounts.models import teams_of
from dashboard.accounts.roles import RANK, SUPERVISOR, user_role

from . import offers, tray


def alert_tray(request):
    user = getattr(request, "user", None)
    role = user_role(user)
    if role is None:
        return {}
    try:
        html = tray.current() + offers.current()
    except Exception:  # the tray never takes a page down with it
        html = '<div id="alert-tray" class="alert-tray" data-count="0" data-alarms="0"></div>'
    return {
        "alert_tray": html,
        "can_acknowledge": RANK[role] >= RANK[SUPERVISOR],
        "alert_teams": teams_of(user),
    }
