"""Turning stored deliveries into records, after the delivery was answered.

Each delivery is claimed with a conditional update (received → processing), so two
processors never handle the same one; records are upserted by the service's ids, so a
replay never counts twice. Deliveries left unprocessed by a crash are picked up at start,
which is right only while no other processor is at work: with several bridges, only the
leader runs the processor, and a leader that loses its lease stops between two deliveries.
"""

import asyncio
import contextlib
import json
import logging

from asgiref.sync import sync_to_async
from django.db import DataError, IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from dashboard.shared.aio import pause
from dashboard.shared.privacy import mask_phone_numbers
from dashboard.upstream import contract as c
from dashboard.upstream import webhooks as wh
from dashboard.upstream.errors import ContractError

from .metrics import today_figures
from .models import (
    Appointment,
    CoachingAlert,
    CompletedCall,
    ComplianceResult,
    Delivery,
    Scorecard,
)
from .publish import publish_alert, publish_qa

log = logging.getLogger("dashboard.quality.processing")
SWEEP_S = 5.0
MAX_ATTEMPTS = 5  # passes a delivery may fail for a reason other than its data
_processor: tuple[asyncio.AbstractEventLoop, asyncio.Event] | None = None


def notify():
    """A delivery was stored (in a view's thread): wake this process's processor, if any."""
    if _processor is not None:
        loop, wakeup = _processor
        # Only a nudge (the sweep finds the row anyway): never a failed delivery for it.
        with contextlib.suppress(RuntimeError):  # its loop has closed
            loop.call_soon_threadsafe(wakeup.set)


def process_pending(stop: asyncio.Event | None = None) -> int:
    """Process every stored delivery not yet processed, or until `stop` is set; returns
    how many were. Waits (processes nothing) until the service user's organisation is
    known: a delivery is counted only once it is known to be this organisation's."""
    organization = wh.known_organization()
    if organization is None:
        return 0
    done, qa_changed, new_alerts = 0, False, []
    for pk in list(Delivery.objects.filter(status=Delivery.RECEIVED).values_list("pk", flat=True)):
        if stop is not None and stop.is_set():
            break
        claimed = Delivery.objects.filter(pk=pk, status=Delivery.RECEIVED).update(
            status=Delivery.PROCESSING, attempts=F("attempts") + 1
        )
        if not claimed:
            continue  # another processor has it
        delivery = Delivery.objects.get(pk=pk)
        try:
            if delivery.attempts > MAX_ATTEMPTS:
                raise GaveUp(f"gave up after {MAX_ATTEMPTS} attempts; last: {delivery.error}")
            with transaction.atomic():
                record, created = apply(delivery, organization)
                delivery.status, delivery.error = Delivery.PROCESSED, ""
                delivery.processed_at = timezone.now()
                delivery.save(update_fields=["status", "error", "processed_at"])
            done += 1
            qa_changed |= isinstance(record, Scorecard | ComplianceResult)
            if created and isinstance(record, CoachingAlert):
                new_alerts.append(record)
        except Exception as exc:  # one bad delivery never stops the others
            settle(delivery, exc)
    for alert in new_alerts:
        publish_alert(alert, new=True)
    if qa_changed:
        publish_qa()
    return done


class GaveUp(Exception):
    """A delivery whose every attempt failed for a reason other than its data."""


class Foreign(Exception):
    """A delivery naming another organisation (or none)."""


# What the delivery itself holds wrong: retrying cannot help. PostgreSQL reports a value
# its column cannot hold (too long, out of range) as a DataError.
DATA_ERRORS = (ContractError, ValueError, RecursionError, DataError, IntegrityError, GaveUp)


def settle(delivery: Delivery, exc: Exception):
    """After a failed attempt: refused or failed for good with the reason, or back in the
    queue for the next pass while attempts are left."""
    rows = Delivery.objects.filter(pk=delivery.pk)
    reason = f"{type(exc).__name__}: {exc}"[:1000]
    what = f"delivery {delivery.delivery_id} ({delivery.event})"
    if isinstance(exc, Foreign):
        log.warning("%s refused: %s", what, exc)
        rows.update(status=Delivery.REFUSED, error=str(exc))
    elif isinstance(exc, DATA_ERRORS) or delivery.attempts >= MAX_ATTEMPTS:
        log.warning("%s failed: %s", what, reason)
        rows.update(status=Delivery.FAILED, error=reason)
    else:  # the database away, a bug: try again on a later pass, up to MAX_ATTEMPTS
        log.warning("%s waits for the next pass (attempt %d): %s", what, delivery.attempts, reason)
        rows.update(status=Delivery.RECEIVED, error=reason)


def recover_interrupted():
    """Deliveries a dead process had claimed go back in the queue."""
    return Delivery.objects.filter(status=Delivery.PROCESSING).update(status=Delivery.RECEIVED)


def apply(delivery: Delivery, organization: str):
    """Make or update the record a delivery carries: (record, created)."""
    payload = json.loads(bytes(delivery.body))
    envelope = wh.parse_envelope(payload, delivery.received_at)
    if envelope.event != delivery.event:
        raise ContractError("the body's event differs from the stored one")
    if envelope.organization_id != organization:
        raise Foreign(f"organization_id {envelope.organization_id!r} is not this dashboard's")
    data = wh.parse_data(envelope.event, envelope.data)
    at = envelope.created_at or delivery.received_at
    if isinstance(data, wh.CallCompleted):
        transcript = mask_phone_numbers(data.transcript)
        if transcript != data.transcript:  # the delivery as kept holds no more than the record
            payload["data"]["transcript"] = transcript
            Delivery.objects.filter(pk=delivery.pk).update(body=json.dumps(payload).encode())
        return CompletedCall.objects.update_or_create(
            call_id=data.call_id,
            defaults={
                "agent_id": data.agent_id or "",
                "campaign_id": data.campaign_id or "",
                "outcome": data.outcome,
                "duration_s": data.duration_s,
                "completed_at": at,
                "transcript": transcript,
            },
        )
    if isinstance(data, wh.AppointmentBooked):
        # One appointment per booking: the one known from the call's outcome (the
        # service's history) gives way to the service's own.
        Appointment.objects.filter(
            call_id=data.call_id or "", appointment_id__startswith="call:"
        ).exclude(call_id="").delete()
        return Appointment.objects.update_or_create(
            appointment_id=data.appointment_id,
            defaults={
                "call_id": data.call_id or "",
                "campaign_id": data.campaign_id or "",
                "agent_id": data.agent_id or "",
                "starts_at": data.starts_at,
                "booked_at": at,
            },
        )
    if isinstance(data, c.Scorecard):
        return Scorecard.objects.update_or_create(
            scorecard_id=data.id,
            defaults={
                "call_id": data.call_id or "",
                "agent_id": data.agent_id or "",
                "template_id": data.template_id or "",
                "score": data.score,
                "max_score": data.max_score,
                "passed": data.passed,
                "scored_at": at,
            },
        )
    if isinstance(data, wh.ComplianceChecked):
        return ComplianceResult.objects.update_or_create(
            check_id=data.check_id,
            defaults={
                "call_id": data.call_id or "",
                "agent_id": data.agent_id or "",
                "rule": data.rule,
                "passed": data.passed,
                "details": data.details,
                "checked_at": at,
            },
        )
    # A coaching alert. A replay must not reopen one a manager already worked on: create only.
    return CoachingAlert.objects.get_or_create(
        alert_id=data.id,
        defaults={
            "agent_id": data.agent_id or "",
            "call_id": data.call_id or "",
            "kind": data.kind,
            "severity": data.severity,
            "message": data.message,
            "raised_at": at,
        },
    )


async def run_processor(stop: asyncio.Event, on_figures=None):
    """Drain what a crash left, then process on notification and every few seconds.
    `on_figures` receives today's figures after every pass: alerts resolved on a page (in
    any process) and the day's rollover change them without a delivery."""
    global _processor
    wakeup = asyncio.Event()
    _processor = mine = (asyncio.get_running_loop(), wakeup)
    watcher = asyncio.ensure_future(stop.wait())
    watcher.add_done_callback(lambda _: wakeup.set())
    try:
        recover = True  # at start: what a dead process had claimed
        while not stop.is_set():
            try:
                if recover:
                    await sync_to_async(recover_interrupted)()
                    recover = False
                await sync_to_async(process_pending)(stop)
                if on_figures:
                    on_figures(await sync_to_async(today_figures)())
            except Exception:
                log.exception("webhook processing pass failed; retrying")
                recover = True  # rows this pass had claimed go back in the queue
            if not stop.is_set():  # a stop during the pass set `wakeup`: keep it
                wakeup.clear()
            await pause(wakeup, SWEEP_S)
    finally:
        if _processor is mine:
            _processor = None
