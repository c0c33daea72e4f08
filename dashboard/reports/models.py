"""Intraday facts kept per 15 minutes, so the day's charts survive restarts and span
processes. Both are written by the bridge by adding what grew, never by overwriting, so a
bridge restarted mid-day adds to the slots it finds instead of resetting them."""

from django.conf import settings
from django.db import models
from django.db.models import F


class FloorSlot(models.Model):
    """The floor's counters of one 15-minute slot (see dashboard/live/state.py `Counts`)."""

    start = models.DateTimeField(unique=True)
    calls = models.PositiveIntegerField(default=0)
    completed = models.PositiveIntegerField(default=0)
    ai_completed = models.PositiveIntegerField(default=0)
    handled = models.PositiveIntegerField(default=0)
    handle_s = models.FloatField(default=0)
    inbound_answered = models.PositiveIntegerField(default=0)
    inbound_in_sl = models.PositiveIntegerField(default=0)
    busy_s = models.FloatField(default=0)
    available_s = models.FloatField(default=0)

    class Meta:
        ordering = ["start"]


class CampaignSlot(models.Model):
    """How much a campaign's counters grew in one 15-minute slot (from GET /campaigns)."""

    campaign_id = models.CharField(max_length=200)
    start = models.DateTimeField()
    dialed = models.PositiveIntegerField(default=0)
    connected = models.PositiveIntegerField(default=0)
    booked = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["start"]
        constraints = [
            models.UniqueConstraint(fields=["campaign_id", "start"], name="one_slot_per_campaign")
        ]


def add_to_slot(model, amounts: dict, **slot):
    """Add `amounts` to the counters of the slot row named by `slot`, made if missing; in
    the database (F expressions), so two writers never lose each other's additions."""
    row, _ = model.objects.get_or_create(**slot)
    model.objects.filter(pk=row.pk).update(**{k: F(k) + v for k, v in amounts.items()})


# ---- Outbound operations --------------------------------------------------------------------
class CampaignAction(models.Model):
    """A start or stop a Manager asked for, and what the service answered, as it came."""

    DONE, REFUSED, FAILED = "done", "refused", "failed"  # 200; 4xx; no answer to go by
    OUTCOMES = [(DONE, "Done"), (REFUSED, "Refused"), (FAILED, "Not confirmed")]

    campaign_id = models.CharField(max_length=200, db_index=True)
    campaign_name = models.CharField(max_length=120, blank=True)
    action = models.CharField(max_length=5)  # start, stop
    status_before = models.CharField(max_length=40, blank=True)  # as the dashboard showed it
    by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL)
    at = models.DateTimeField(auto_now_add=True)
    outcome = models.CharField(max_length=8, choices=OUTCOMES)
    http_status = models.PositiveSmallIntegerField(null=True)
    answer = models.TextField()

    class Meta:
        ordering = ["-at", "-pk"]


class HandledBooking(models.Model):
    """A pending booking a Manager marked as handled: the service has no write for it, so
    the mark and its note are the dashboard's own."""

    booking_id = models.CharField(max_length=200, unique=True)
    campaign_id = models.CharField(max_length=200)
    note = models.TextField()
    by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL)
    at = models.DateTimeField(auto_now_add=True)


class HistoryDay(models.Model):
    """How far the service's history of one day has been read into the dashboard's records
    (the backfill): the moment it reads up to (for today, where this dashboard's live view
    of the day began), each agent's state at that moment (its time from then on is counted
    live), and whether it is done. Written with what it filled, in one transaction."""

    day = models.DateField(unique=True)
    until = models.DateTimeField()
    agents_since = models.JSONField(default=dict)  # agent id -> ISO since of its live state
    done = models.BooleanField(default=False)
    filled_at = models.DateTimeField(null=True)
