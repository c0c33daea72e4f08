"""POST /webhooks/service/: verify, store durably, answer at once; processing comes after."""

import hashlib
import json
import logging

from django.conf import settings
from django.db import IntegrityError, OperationalError, transaction
from django.http import JsonResponse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST

from dashboard.shared import metrics
from dashboard.upstream import contract as c
from dashboard.upstream import webhooks as wh

from . import processing
from .models import Delivery

log = logging.getLogger("dashboard.quality.webhooks")
MAX_BODY = 256 * 1024


def answer(status: int, message: str) -> JsonResponse:
    metrics.webhook_answered(status)
    return JsonResponse({"status": status, "message": message}, status=status)


@csrf_exempt  # the signature authenticates the service; there is no browser session here
@require_POST
def receive(request):
    try:
        declared = int(request.headers.get("Content-Length") or 0)
    except ValueError:
        return answer(400, "Content-Length is not a number")
    if declared > MAX_BODY:
        return answer(413, "body over 256 KiB")
    body = request.body  # bounded by Content-Length (checked) or DATA_UPLOAD_MAX_MEMORY_SIZE
    if len(body) > MAX_BODY:
        return answer(413, "body over 256 KiB")
    if not wh.verify(
        body, request.headers.get(wh.SIGNATURE_HEADER), settings.UPSTREAM_WEBHOOK_SECRETS
    ):
        log.warning("webhook refused: missing or wrong signature")
        return answer(401, "missing or wrong signature")
    event = request.headers.get(wh.EVENT_HEADER, "")
    if event not in c.WEBHOOK_EVENTS:
        return answer(400, f"{wh.EVENT_HEADER} must be one of {', '.join(c.WEBHOOK_EVENTS)}")
    try:
        payload = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        keep_for_audit(body, event, "body is not JSON")
        return answer(400, "body is not JSON")
    except RecursionError:  # a few thousand nested brackets
        keep_for_audit(body, event, "body is nested too deeply")
        return answer(400, "body is nested too deeply")
    delivery_id = payload.get("id") if isinstance(payload, dict) else None
    if not isinstance(delivery_id, str) or not delivery_id or len(delivery_id) > 200:
        keep_for_audit(body, event, "no delivery id")
        return answer(400, "body has no delivery id")
    if payload.get("event") != event:
        return answer(400, f"{wh.EVENT_HEADER} does not match the body's event")
    try:
        ours, theirs = wh.known_organization(), payload.get("organization_id")
    except Exception as exc:  # the cache (Redis) away; its client's errors vary by backend
        return unavailable(delivery_id, "the cache", exc)
    if ours is not None and theirs != ours:  # unknown before the first sign-in: processing checks
        keep_for_audit(body, event, "another organisation's delivery", Delivery.REFUSED)
        return answer(403, "organization_id is not this dashboard's organisation")
    try:
        with transaction.atomic():
            Delivery.objects.create(delivery_id=delivery_id, event=event, body=body)
    except IntegrityError:
        return answer(200, "already received")  # a retry or a replay: processed once
    except OperationalError as exc:
        return unavailable(delivery_id, "the database", exc)
    processing.notify()
    return answer(202, "accepted")


def unavailable(delivery_id: str, part: str, exc: Exception) -> JsonResponse:
    """A part of the stack away: not stored, and the service retries the delivery."""
    log.warning("webhook %s not stored, %s is unavailable: %s", delivery_id, part, exc)
    response = answer(503, f"not stored: {part} is unavailable; retry later")
    response["Retry-After"] = "5"
    return response


def keep_for_audit(body: bytes, event: str, error: str, status=Delivery.MALFORMED):
    """A signed body we cannot read or must not count: kept, never processed, once per
    distinct body."""
    key = f"{status}:" + hashlib.sha256(body).hexdigest()
    Delivery.objects.get_or_create(
        delivery_id=key, defaults={"event": event, "body": body, "status": status, "error": error}
    )
    log.warning("signed webhook kept for audit, not processed: %s", error)
