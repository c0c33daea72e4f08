from datetime import UTC, datetime

from django.conf import settings
from django.core.cache import cache
from django.shortcuts import render

from dashboard.accounts.roles import WALLBOARD, role_required
from dashboard.shared.today import start_of_today

from .explain import panels
from .feed import LIVE_VIEW, TEAMS_KEY, rendered_floor
from .render import STATE_LOOK


@role_required(WALLBOARD)
def home(request, charts):
    """The page, with the floor as it is now; the websocket then keeps it up to date.
    `charts(since, now)` gives the intraday charts' data (the URL conf passes it in)."""
    day = charts(start_of_today(), datetime.now(UTC))
    version, floor = rendered_floor(LIVE_VIEW)
    return render(
        request,
        "live/home.html",
        {
            "teams": cache.get(TEAMS_KEY) or [],
            "states": [(key, label) for key, (_, label) in STATE_LOOK.items()],
            "charts": day,
            "panels": panels(day),
            "service_level_s": settings.SERVICE_LEVEL_THRESHOLD_S,
            "floor": floor,
            "version": version,
        },
    )
