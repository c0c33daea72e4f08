"""What the inbound board keeps across restarts: each queue's day per 15 minutes, and what
its counters held at the day's first read."""

from django.db import models
from django.db.models import F

COUNTERS = ("offered", "answered", "within_target", "abandoned", "short_abandoned")


class QueueCounts(models.Model):
    """A queue's five counters (`COUNTERS`), as the service's stats name them."""

    offered = models.PositiveIntegerField(default=0)
    answered = models.PositiveIntegerField(default=0)
    within_target = models.PositiveIntegerField(default=0)
    abandoned = models.PositiveIntegerField(default=0)
    short_abandoned = models.PositiveIntegerField(default=0)

    class Meta:
        abstract = True


class QueueSlot(QueueCounts):
    """How much a queue's counters (GET /inbound/queues/{id}/stats) grew in one 15-minute
    slot, in the minutes its schedule was open or in those it was closed. The day's rows
    add up to the counters last pulled, so a restart goes on from them."""

    queue_id = models.CharField(max_length=200)
    start = models.DateTimeField()
    open = models.BooleanField()

    class Meta:
        ordering = ["start"]
        constraints = [
            models.UniqueConstraint(
                fields=["queue_id", "start", "open"], name="one_part_per_queue_slot"
            )
        ]


def add_grown(queue_id: str, start, is_open: bool, grown: dict):
    """Add `grown` to the slot part's counters in the database (F expressions), made if
    missing, so two bridges in turn never lose each other's additions."""
    row, _ = QueueSlot.objects.get_or_create(queue_id=queue_id, start=start, open=is_open)
    QueueSlot.objects.filter(pk=row.pk).update(**{k: F(k) + v for k, v in grown.items()})


class QueueBaseline(QueueCounts):
    """A queue's counters at the first read of its day (`read_at`). The service gives totals
    since a time, not per 15 minutes, so what came before a first read later than the
    day's first slot stays here, whole, and is never put into the slot of that read; a
    first read within the day's first slot leaves zeros here from the day's start. The
    day's counters are this and its slots."""

    queue_id = models.CharField(max_length=200)
    day = models.DateTimeField()  # the day's start
    read_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["queue_id", "day"], name="one_baseline_per_queue_day")
        ]
