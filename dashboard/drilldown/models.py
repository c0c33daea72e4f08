"""What the drill-down keeps: calls as the service's events told them (written by the
journal; the agents' states are the one record in dashboard/states/), and the notes
supervisors leave about agents."""

from django.conf import settings
from django.db import models


class CallSeen(models.Model):
    """A call as the service's events told it (call.started, .updated and .ended)."""

    call_id = models.CharField(max_length=200, unique=True)
    agent_id = models.CharField(max_length=200, blank=True, db_index=True)
    campaign_id = models.CharField(max_length=200, blank=True)
    direction = models.CharField(max_length=20, blank=True)
    ai_handled = models.BooleanField(default=False)
    started_at = models.DateTimeField(null=True, db_index=True)
    ended_at = models.DateTimeField(null=True)
    outcome = models.CharField(max_length=60, blank=True)
    duration_s = models.PositiveIntegerField(null=True)


class Note(models.Model):
    """A supervisor's note about an agent; only its author may change it."""

    agent_id = models.CharField(max_length=200, db_index=True)
    author = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL)
    text = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at"]
