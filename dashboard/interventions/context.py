"""What the page's intervention menu and session bar need: what this person may do (the
pushed tiles and rows are the same for everyone; the script shows each control from
this), and whether their monitoring phone is set."""

from dashboard.accounts.models import monitor_dial_of

from . import policy
from .control import PAUSE_REASONS


def acting(request):
    user = getattr(request, "user", None)
    if user is None:
        return {}
    can = policy.abilities(user)
    if can is None:
        return {}
    return {
        "acting": {**can, "teams": list(can["teams"]), "dial": bool(monitor_dial_of(user))},
        "pause_reasons": PAUSE_REASONS,
    }
