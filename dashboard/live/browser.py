"""What the live pages' scripts are told, rendered into the page as #live-config: the one
place for the limits, state labels and close codes that static/js/live/ and wallboard.js share."""

from django.conf import settings

from dashboard.shared.close_codes import CLOSE_FORBIDDEN, CLOSE_SIGNED_OUT

from .models import Thresholds
from .render import STATE_LOOK


def browser_config(**page) -> dict:
    """The shared part, with the page's own keys (`page`) added."""
    return {
        "thresholds": Thresholds.current().for_browser(),
        "stale_after_s": settings.LIVE_STALE_AFTER_S,
        "states": {key: label for key, (_, label) in STATE_LOOK.items()},  # in sort order
        "close": {"signed_out": CLOSE_SIGNED_OUT, "forbidden": CLOSE_FORBIDDEN},
        **page,
    }
