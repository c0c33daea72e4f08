"""ASGI entry point: HTTP to Django, websockets through Channels with session sign-in.

A websocket is let in only from a page of this server: its Origin must be the socket's
own scheme, host and port (or one of CSRF_TRUSTED_ORIGINS), with an allowed host.
Channels' AllowedHostsOriginValidator compares the host alone, so a page on another port
or over plain http of the same host could open a signed-in person's sockets.
"""

import os
from urllib.parse import urlsplit

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django_asgi_app = get_asgi_application()

from channels.generic.websocket import AsyncWebsocketConsumer  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import WebsocketDenier  # noqa: E402
from django.conf import settings  # noqa: E402
from django.http.request import split_domain_port, validate_host  # noqa: E402
from django.urls import re_path  # noqa: E402

from dashboard.alerts import routing as alerts_routing  # noqa: E402
from dashboard.drilldown import routing as drilldown_routing  # noqa: E402
from dashboard.inbound import routing as inbound_routing  # noqa: E402
from dashboard.live import routing as live_routing  # noqa: E402
from dashboard.live.handshake import AuthMiddlewareStack  # noqa: E402
from dashboard.quality import routing as quality_routing  # noqa: E402
from dashboard.reports import routing as reports_routing  # noqa: E402
from dashboard.wallboard import routing as wallboard_routing  # noqa: E402

DEFAULT_PORTS = {"http": 80, "https": 443}


def origin_of(scheme: str, netloc: str) -> tuple | None:
    parts = urlsplit(f"{scheme}://{netloc}")
    try:
        return parts.scheme, parts.hostname, parts.port or DEFAULT_PORTS[parts.scheme]
    except (ValueError, KeyError):
        return None


def socket_scheme(scope, headers: dict) -> str:
    """The scheme of the page this socket's server serves: Daphne puts none in a websocket's
    scope, so behind a TLS proxy it is the one SECURE_PROXY_SSL_HEADER names, as for pages."""
    if settings.SECURE_PROXY_SSL_HEADER:
        name, secure = settings.SECURE_PROXY_SSL_HEADER
        header = name.removeprefix("HTTP_").replace("_", "-").lower().encode()
        given = headers.get(header, b"").decode("latin1").split(",", 1)[0].strip()
        return "https" if given == secure else "http"
    return "https" if scope.get("scheme") == "wss" else "http"


def same_origin(scope) -> bool:
    headers = dict(scope["headers"])
    origin = headers.get(b"origin", b"").decode("latin1")
    if origin in settings.CSRF_TRUSTED_ORIGINS:
        return True
    host = headers.get(b"host", b"").decode("latin1")
    ours = origin_of(socket_scheme(scope, headers), host)
    scheme, sep, netloc = origin.partition("://")
    return (
        bool(sep)
        and ours is not None
        and origin_of(scheme, netloc) == ours
        and validate_host(split_domain_port(host)[0], settings.ALLOWED_HOSTS)
    )


class SameOriginValidator:
    """Refuses the handshake (HTTP 403) of a websocket from any other origin."""

    def __init__(self, application):
        self.application = application

    async def __call__(self, scope, receive, send):
        if not same_origin(scope):
            return await WebsocketDenier()(scope, receive, send)
        return await self.application(scope, receive, send)


class NoSuchSocket(AsyncWebsocketConsumer):
    """Any other path: closed with 4404 (htmx does not retry 4xxx), not a traceback that
    would print the path, which may hold a kiosk token."""

    async def connect(self):
        await self.accept()
        await self.close(code=4404)


application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": SameOriginValidator(
            AuthMiddlewareStack(
                URLRouter(
                    live_routing.websocket_urlpatterns
                    + quality_routing.websocket_urlpatterns
                    + reports_routing.websocket_urlpatterns
                    + wallboard_routing.websocket_urlpatterns
                    + drilldown_routing.websocket_urlpatterns
                    + alerts_routing.websocket_urlpatterns
                    + inbound_routing.websocket_urlpatterns
                    + [re_path(r"", NoSuchSocket.as_asgi())]
                )
            )
        ),
    }
)
