"""The websocket close codes the dashboard sends, each with its meaning to the browser:
htmx's websocket extension reconnects after 1006, 1012 and 1013 and never after 4xxx, so a
code says whether the page comes back by itself (docs/reliability.md)."""

from .registry import Entry

CLOSE_RESTARTING = 1012  # come back: a restart, an hourly re-check, a socket that fell behind
CLOSE_SIGNED_OUT = 4401  # do not come back: no session (the page says "signed out")
CLOSE_FORBIDDEN = 4403  # do not come back: no access (a role too low, a revoked kiosk link)

REGISTRY = {
    "CLOSE_RESTARTING": Entry("live", ("live", "accounts"), ("browser",)),
    "CLOSE_SIGNED_OUT": Entry("accounts", ("accounts", "live"), ("live", "browser")),
    "CLOSE_FORBIDDEN": Entry("accounts", ("accounts", "live", "wallboard"), ("live", "browser")),
}
