"""Every page and socket the URL conf has, as concrete paths, so a new one is covered by the
access, header and bad-input tests without being listed anywhere."""

import inspect
import re
from dataclasses import dataclass

from django.urls import URLResolver, get_resolver

from config.asgi import application  # noqa: F401  (loads the websocket routing)
from dashboard.accounts.roles import MANAGER
from dashboard.alerts.routing import websocket_urlpatterns as alerts_sockets
from dashboard.drilldown.routing import websocket_urlpatterns as drilldown_sockets
from dashboard.inbound.routing import websocket_urlpatterns as inbound_sockets
from dashboard.live.routing import websocket_urlpatterns as live_sockets
from dashboard.quality.routing import websocket_urlpatterns as quality_sockets
from dashboard.reports.routing import websocket_urlpatterns as reports_sockets

SAMPLES = {  # a value for each path parameter the URL conf uses
    "pk": "1",
    "object_id": "1",
    "content_type_id": "1",
    "id": "1",
    "action": "acknowledge",
    "campaign_id": "cmp-1",
    "booking_id": "bk-1",
    "token": "not-a-kiosk-token",
    "app_label": "live",
    "url": "nowhere/",
    "agent_id": "ag-1",
    "call_id": "call-1",
    "queue_id": "q-1",
    "message_id": "vm-1",
    "day": "2026-01-05",
}
# Pages anyone may reach (the webhook receiver authenticates by signature, a wallboard by
# the kiosk token in its path, /metrics by its bearer token, the rest are sign-in and
# health), and account pages any signed-in person may use.
KIOSK = "/wallboard/not-a-kiosk-token/"
PUBLIC = {
    "/healthz",
    "/readyz",
    "/metrics",
    "/accounts/login/",
    "/accounts/logout/",
    "/webhooks/service/",
    KIOSK,
}
POST_ONLY = (  # actions: a GET is refused with 405
    "/coaching/1/",
    "/wallboards/1/revoke/",
    "/agents/ag-1/notes/",
    "/calls/call-1/recording/",
    "/campaigns/cmp-1/start",
    "/campaigns/cmp-1/stop",
    "/campaigns/cmp-1/bookings/",
    "/accounts/preferences/theme/",
    "/accounts/preferences/teams/",
    "/accounts/preferences/views/",
    "/accounts/preferences/monitor-dial/",
    "/alerts/1/acknowledge/",
    "/alerts/rules/1/delete/",
    "/calls/call-1/monitor/",
    "/agents/ag-1/state/",
    "/voicemail/vm-1/handled/",
)
SIGNED_IN = {"/accounts/password_change/", "/accounts/password_change/done/"}


@dataclass
class Route:
    path: str
    view: object

    @property
    def role(self):
        """The least role the page needs; the admin needs the Manager role throughout."""
        if self.path.startswith("/admin/"):
            return MANAGER
        return getattr(self.view, "minimum_role", None)

    @property
    def code(self):
        """What answers the page, under its wrappers: the admin's pages of one kind share one
        ModelAdmin method (or RedirectView) whatever the model, unless its admin has its own."""
        view = inspect.unwrap(self.view)
        view = getattr(view, "view_class", view)
        return getattr(view, "__func__", view)

    @property
    def post_only(self):
        return self.path.startswith(POST_ONLY)


def concrete(route: str) -> str:
    route = re.sub(r"\(\?P<(\w+)>[^)]*\)", lambda m: SAMPLES[m[1]], route)
    route = re.sub(r"<(?:\w+:)?(\w+)>", lambda m: SAMPLES[m[1]], route)
    return "/" + route.replace("^", "").replace("$", "")


def routes(patterns=None, prefix="") -> list[Route]:
    found = []
    for p in get_resolver().url_patterns if patterns is None else patterns:
        if isinstance(p, URLResolver):
            found += routes(p.url_patterns, prefix + str(p.pattern))
        else:
            found.append(Route(concrete(prefix + str(p.pattern)), p.callback))
    return found


def pages() -> list[Route]:
    """What a browser can GET."""
    return [r for r in routes() if not r.post_only and r.path != "/webhooks/service/"]


def sockets() -> list[tuple[str, str]]:
    """(path, least role) of every signed-in websocket (a wallboard's: tests/wallboard)."""
    return [
        (concrete(str(p.pattern)), p.callback.consumer_class.minimum_role)
        for p in live_sockets
        + quality_sockets
        + reports_sockets
        + drilldown_sockets
        + alerts_sockets
        + inbound_sockets
    ]
