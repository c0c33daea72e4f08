from datetime import UTC, datetime
from urllib.parse import urlencode

from django.conf import settings
from django.core.cache import cache
from django.shortcuts import render

from dashboard.accounts import scope
from dashboard.accounts.models import teams_of
from dashboard.accounts.roles import WALLBOARD, role_required
from dashboard.shared.cache_keys import TEAMS_KEY
from dashboard.shared.today import start_of_today

from .audiences import LIVE_VIEW, Shows
from .explain import panels
from .publish import rendered_floor
from .render import STATE_LOOK


@role_required(WALLBOARD)
def home(request, charts):
    """The page, with the floor as it is now; the websocket then keeps it up to date.
    `charts(since, now)` gives the intraday charts' data (the URL conf passes it in).
    Its scope (accounts/scope.py: the person's teams unless the address says otherwise) picks
    the tiles shown and the KPI strip, which the feed renders per team set in use."""
    day = charts(start_of_today(), datetime.now(UTC))
    known = cache.get(TEAMS_KEY) or []
    shown = scope.scope_of(request.GET, teams_of(request.user))
    scope.register(shown.teams, known)
    version, floor = rendered_floor(Shows(LIVE_VIEW.parts, shown.teams))
    return render(
        request,
        "live/home.html",
        {
            "team_choices": shown.teams or known,
            "scope": shown,
            "alert_teams": shown.teams,  # the tray follows the page's scope
            "links": scope.links(request.GET, shown),
            "states": [(key, label) for key, (_, label) in STATE_LOOK.items()],
            "charts": day,
            "panels": panels(day),
            "service_level_s": settings.SERVICE_LEVEL_THRESHOLD_S,
            "floor": floor,
            "version": version,
            "socket_url": socket_url(version, shown.teams),
        },
    )


def socket_url(version: int | None, teams: tuple[str, ...]) -> str:
    """The live socket's address: the version rendered in, the team set's KPI strip."""
    query = {"v": version} if version is not None else {}
    if teams:
        query["teams"] = scope.key(teams)
    return f"/ws/live/?{urlencode(query)}" if query else "/ws/live/"
