"""ASGI entry point: HTTP to Django, websockets through Channels with session sign-in."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django_asgi_app = get_asgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from dashboard.live import routing as live_routing  # noqa: E402
from dashboard.live.handshake import AuthMiddlewareStack  # noqa: E402
from dashboard.quality import routing as quality_routing  # noqa: E402
from dashboard.reports import routing as reports_routing  # noqa: E402
from dashboard.wallboard import routing as wallboard_routing  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": AllowedHostsOriginValidator(
            AuthMiddlewareStack(
                URLRouter(
                    live_routing.websocket_urlpatterns
                    + quality_routing.websocket_urlpatterns
                    + reports_routing.websocket_urlpatterns
                    + wallboard_routing.websocket_urlpatterns
                )
            )
        ),
    }
)
