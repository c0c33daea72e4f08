"""The audit of interventions: every request, who asked, when, on what, what was asked and
what the service answered (refusals and silences included). Kept RETENTION_DAYS like the
drill-down's data (dashboard/drilldown/retention.py purges it)."""

from django.conf import settings
from django.db import models


class Intervention(models.Model):
    DONE, REFUSED, FAILED = "done", "refused", "failed"  # 2xx; 4xx; no answer to go by
    OUTCOMES = [(DONE, "Done"), (REFUSED, "Refused"), (FAILED, "Not confirmed")]
    MONITOR, SWITCH, HANG_UP, STATE = "monitor", "switch", "hang_up", "state"
    ACTIONS = [
        (MONITOR, "Start monitoring"),
        (SWITCH, "Switch mode"),
        (HANG_UP, "Hang up"),
        (STATE, "Set agent state"),
    ]

    at = models.DateTimeField(auto_now_add=True, db_index=True)
    by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL)
    by_name = models.CharField(max_length=150)  # kept if the person is deleted
    action = models.CharField(max_length=8, choices=ACTIONS)
    call_id = models.CharField(max_length=200, blank=True, db_index=True)
    agent_id = models.CharField(max_length=200, blank=True, db_index=True)
    session_id = models.CharField(max_length=200, blank=True)
    asked = models.CharField(max_length=300)  # "listen", "paused: coaching", …
    outcome = models.CharField(max_length=8, choices=OUTCOMES)
    http_status = models.PositiveSmallIntegerField(null=True)
    answer = models.CharField(max_length=500)  # the service's answer, in words

    class Meta:
        ordering = ["-at", "-pk"]

    def __str__(self):
        target = self.call_id and f"call {self.call_id}" or f"agent {self.agent_id}"
        return f"{self.by_name}: {self.get_action_display()} on {target} ({self.outcome})"
