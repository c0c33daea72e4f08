"""`/metrics` for Prometheus: only with `Authorization: Bearer <METRICS_TOKEN>`, and not
there at all (404) while METRICS_TOKEN is unset. In multiprocess mode a scrape of any web
worker reads every process's values (shared/metrics.py)."""

import hmac

from django.conf import settings
from django.http import Http404, HttpResponse
from django.views.decorators.http import require_GET
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from dashboard.shared import metrics


@require_GET
def scrape(request):
    token = settings.METRICS_TOKEN
    if not token:
        raise Http404("metrics are off: METRICS_TOKEN is unset")
    given = request.headers.get("Authorization", "")
    if not hmac.compare_digest(given.encode(), f"Bearer {token}".encode()):
        response = HttpResponse("a bearer token is needed\n", status=401, content_type="text/plain")
        response["WWW-Authenticate"] = 'Bearer realm="metrics"'
        return response
    return HttpResponse(generate_latest(metrics.registry()), content_type=CONTENT_TYPE_LATEST)
