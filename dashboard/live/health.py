"""Liveness and readiness for load balancers and process supervisors."""

import logging
import time

from django.core.cache import caches
from django.http import JsonResponse
from django.views.decorators.http import require_GET

from dashboard.shared import metrics
from dashboard.shared.cache_keys import STATUS_KEY

STARTED = time.monotonic()
log = logging.getLogger(__name__)


@require_GET
def healthz(request):
    return JsonResponse({"status": "ok", "uptime_s": round(time.monotonic() - STARTED, 1)})


@require_GET
def readyz(request):
    """Ready only when the bridge is signed in and has joined its room (it says so through
    the cache, which every web process reads). Public, so it names the state only: the
    reason (the service's own error text, the organisation's id) is in the bridge's log.
    The cache is read with a short timeout (the "health" cache): a stalled Redis is a 503
    within about HEALTH_CACHE_TIMEOUT_S, not a probe that hangs."""
    try:
        status = caches["health"].get(STATUS_KEY) or {"state": "starting"}
    except Exception as error:  # Redis stalled or away: not ready, said at once
        metrics.store_error(error)
        log.warning("readyz: the cache did not answer (%s)", type(error).__name__)
        status = {"state": "cache_unreachable"}
    ready = status["state"] == "connected"
    body = {"ready": ready, "upstream": status["state"], "since": status.get("since", "")}
    return JsonResponse(body, status=200 if ready else 503)
