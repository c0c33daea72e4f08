"""Intraday facts kept per 15 minutes, so the day's charts survive restarts and span
processes. Both are written by the bridge by adding what grew, never by overwriting, so a
bridge restarted mid-day adds to the slots it finds instead of resetting them."""

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
