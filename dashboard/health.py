"""Liveness for load balancers and process supervisors."""

import time

from django.http import JsonResponse
from django.views.decorators.http import require_GET

STARTED = time.monotonic()


@require_GET
def healthz(request):
    return JsonResponse({"status": "ok", "uptime_s": round(time.monotonic() - STARTED, 1)})
