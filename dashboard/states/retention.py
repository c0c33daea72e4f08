"""The record is kept as long as the longer of its two readers keeps a day: the agent's
day (RETENTION_DAYS) and the floor replay (REPLAY_DAYS, today counted). Each reader's
daily purge (and its command) asks for what it no longer needs, and gets the stretches
the other reader does not keep either (`expired`)."""

from datetime import datetime, timedelta

from django.db.models import QuerySet
from django.utils import timezone

from .codec import WINDOW, window_of
from .models import AgentStates, Opening


def expired(before: datetime, other_keeps_days: int) -> QuerySet:
    """The rows of the stretches that ended by `before` and are older than the other
    reader's days (a day more: the replay counts days in the organisation's zone); their
    openings go at once."""
    other = timezone.now() - timedelta(days=other_keeps_days + 1)
    cut = min(window_of(before), window_of(other) + WINDOW)
    Opening.objects.filter(start__lt=cut).delete()
    return AgentStates.objects.filter(start__lt=cut)
