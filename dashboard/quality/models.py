"""What the service's webhooks carry, kept durably, and the manager's coaching workflow."""

from django.conf import settings
from django.db import models


class Delivery(models.Model):
    """A verified webhook delivery, stored before it is answered so nothing is lost."""

    RECEIVED, PROCESSING, PROCESSED, FAILED, MALFORMED, REFUSED = (
        "received",
        "processing",
        "processed",
        "failed",
        "malformed",
        "refused",  # another organisation's: kept for audit, never counted
    )
    STATUSES = [(s, s) for s in (RECEIVED, PROCESSING, PROCESSED, FAILED, MALFORMED, REFUSED)]

    delivery_id = models.CharField(max_length=200, unique=True)
    event = models.CharField(max_length=40)
    body = models.BinaryField()
    status = models.CharField(max_length=12, choices=STATUSES, default=RECEIVED, db_index=True)
    error = models.TextField(blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)  # processing passes that claimed it
    received_at = models.DateTimeField(auto_now_add=True)
    processed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["received_at"]

    def __str__(self):
        return f"{self.event} {self.delivery_id} ({self.status})"


class CompletedCall(models.Model):
    call_id = models.CharField(max_length=200, unique=True)
    agent_id = models.CharField(max_length=200, blank=True)
    campaign_id = models.CharField(max_length=200, blank=True)
    outcome = models.CharField(max_length=60)
    duration_s = models.PositiveIntegerField()
    completed_at = models.DateTimeField(db_index=True)
    # Phone numbers in it cut to their last four digits; kept RETENTION_DAYS (docs/privacy.md)
    transcript = models.TextField(blank=True)


class Appointment(models.Model):
    appointment_id = models.CharField(max_length=200, unique=True)
    call_id = models.CharField(max_length=200, blank=True)
    campaign_id = models.CharField(max_length=200, blank=True)
    agent_id = models.CharField(max_length=200, blank=True)  # empty when the AI booked it
    starts_at = models.DateTimeField(null=True)
    booked_at = models.DateTimeField(db_index=True)


class Scorecard(models.Model):
    scorecard_id = models.CharField(max_length=200, unique=True)
    call_id = models.CharField(max_length=200, blank=True)
    agent_id = models.CharField(max_length=200, blank=True)
    template_id = models.CharField(max_length=200, blank=True)
    score = models.IntegerField()
    max_score = models.PositiveIntegerField()
    passed = models.BooleanField()
    scored_at = models.DateTimeField(db_index=True)


class ComplianceResult(models.Model):
    check_id = models.CharField(max_length=200, unique=True)
    call_id = models.CharField(max_length=200, blank=True)
    agent_id = models.CharField(max_length=200, blank=True)
    rule = models.CharField(max_length=120)
    passed = models.BooleanField()
    details = models.TextField(blank=True)
    checked_at = models.DateTimeField(db_index=True)


class CoachingAlert(models.Model):
    OPEN, ACKNOWLEDGED, RESOLVED = "open", "acknowledged", "resolved"
    STATUSES = [(s, s.capitalize()) for s in (OPEN, ACKNOWLEDGED, RESOLVED)]
    SEVERITIES = [(s, s.capitalize()) for s in ("info", "warning", "critical")]

    alert_id = models.CharField(max_length=200, unique=True)
    agent_id = models.CharField(max_length=200, blank=True)
    call_id = models.CharField(max_length=200, blank=True)
    kind = models.CharField(max_length=80)
    severity = models.CharField(max_length=10, choices=SEVERITIES, db_index=True)
    message = models.TextField(blank=True)
    status = models.CharField(max_length=14, choices=STATUSES, default=OPEN, db_index=True)
    raised_at = models.DateTimeField(db_index=True)


class CoachingAction(models.Model):
    """Who did what to an alert, and when: the workflow's audit trail."""

    alert = models.ForeignKey(CoachingAlert, on_delete=models.CASCADE, related_name="actions")
    action = models.CharField(max_length=20)
    note = models.TextField(blank=True)
    by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL)
    at = models.DateTimeField(auto_now_add=True)
