"""Liveness and readiness for load balancers and process supervisors."""

import time

from django.core.cache import cache
from django.http import JsonResponse
from django.views.decorators.http import require_GET

from dashboard.shared.cache_keys import STATUS_KEY

STARTED = time.monotonic()


@require_GET
def healthz(request):
    return JsonResponse({"status": "ok", "uptime_s": round(time.monotonic() - STARTED, 1)})


@require_GET
def readyz(request):
    """Ready only when the bridge is signed in and has joined its room (it says so through
    the cache, which every web process reads). Public, so it names the state only: the
    reason (the service's own error text, the organisation's id) is in the bridge's log."""
    status = cache.get(STATUS_KEY) or {"state": "starting"}
    ready = status["state"] == "connected"
    body = {"ready": ready, "upstream": status["state"], "since": status.get("since", "")}
    return JsonResponse(body, status=200 if ready else 503)
