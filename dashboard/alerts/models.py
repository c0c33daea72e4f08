"""Alert rules (what to watch, where, past which limits, for how long), the alerts they
raised (one open per rule and subject), and the log of the chat webhook's deliveries."""

from django.conf import settings
from django.db import models
from django.db.models import Q

WARN, ALARM = "warn", "alarm"
LEVELS = [(WARN, "Warning"), (ALARM, "Alarm")]


class Metric:
    """What a rule watches. `low_is_bad`: the limits are floors; `unit`: how values read;
    `scopes`: where it may look; `per`: one alert per what (the subject)."""

    LONGEST_WAIT = "longest_wait"
    CALLS_WAITING = "calls_waiting"
    SERVICE_LEVEL = "service_level"
    AGENTS_AVAILABLE = "agents_available"
    RINGING = "agent_ringing"
    WRAP_UP = "agent_wrap_up"
    PAUSED = "agent_paused"
    COACHING = "critical_coaching"
    SERVICE_DOWN = "service_down"
    WEBHOOKS_FAILING = "webhooks_failing"
    PENDING_LEADS = "pending_leads"
    # The inbound side (dashboard/inbound/): read from the live feed's "inbound" figures
    CLOSED_CALLS = "queue_closed_calls"
    VOICEMAIL_AGE = "voicemail_age"
    # The floor's normal (dashboard/normal/), handed in by the composition root
    OUTSIDE_NORMAL = "outside_normal"


ALL, QUEUE, TEAM, CAMPAIGN = "all", "queue", "team", "campaign"
SCOPES = [(ALL, "Everything"), (QUEUE, "A queue"), (TEAM, "A team"), (CAMPAIGN, "A campaign")]

# metric: (label, unit, low_is_bad, scopes allowed, one alert per)
METRICS = {
    Metric.LONGEST_WAIT: ("Longest wait in a queue", "s", False, (ALL, QUEUE), "queue"),
    Metric.CALLS_WAITING: ("Calls waiting in a queue", "calls", False, (ALL, QUEUE), "queue"),
    Metric.SERVICE_LEVEL: ("Service level today", "%", True, (ALL,), "floor"),
    Metric.AGENTS_AVAILABLE: (
        "Agents available",
        "agents",
        True,
        (ALL, QUEUE, TEAM),
        "queue, or the team",
    ),
    Metric.RINGING: ("An agent ringing too long", "s", False, (ALL, TEAM), "agent"),
    Metric.WRAP_UP: ("An agent in wrap-up too long", "s", False, (ALL, TEAM), "agent"),
    Metric.PAUSED: ("An agent paused too long", "s", False, (ALL, TEAM), "agent"),
    Metric.COACHING: ("Open critical coaching alerts", "alerts", False, (ALL,), "floor"),
    Metric.SERVICE_DOWN: ("Service connection down", "s", False, (ALL,), "service"),
    Metric.WEBHOOKS_FAILING: (
        "Service webhook deliveries failing (last 15 min)",
        "deliveries",
        False,
        (ALL,),
        "service",
    ),
    Metric.PENDING_LEADS: (
        "Pending leads of a campaign",
        "leads",
        True,
        (ALL, CAMPAIGN),
        "campaign",
    ),
    Metric.CLOSED_CALLS: (
        "Calls reaching a closed queue",
        "calls",
        False,
        (ALL, QUEUE),
        "queue",
    ),
    Metric.VOICEMAIL_AGE: ("Oldest voicemail not handled", "s", False, (ALL,), "floor"),
    Metric.OUTSIDE_NORMAL: (
        "A floor figure outside its normal band (% of its median beyond the band)",
        "%",
        False,
        (ALL,),
        "figure",
    ),
}
AGENT_STATES = {Metric.RINGING: "ringing", Metric.WRAP_UP: "wrap_up", Metric.PAUSED: "paused"}


class Rule(models.Model):
    name = models.CharField(max_length=120)
    metric = models.CharField(max_length=30, choices=[(k, v[0]) for k, v in METRICS.items()])
    scope = models.CharField(max_length=10, choices=SCOPES, default=ALL)
    scope_value = models.CharField(
        "queue, team or campaign", max_length=200, blank=True, help_text="its name or id"
    )
    warn = models.FloatField("warning limit", null=True, blank=True)
    alarm = models.FloatField("alarm limit", null=True, blank=True)
    hold_s = models.PositiveIntegerField("holds for (s) before it fires", default=0)
    clear_s = models.PositiveIntegerField("back to normal for (s) before it clears", default=10)
    # Rules about agents raise one alert per team: its alarm, when this many agents, or this
    # share of the team's agents, are past the limit (or one is past the alarm limit).
    alarm_agents = models.PositiveIntegerField(
        "alarm at this many agents", null=True, blank=True, help_text="rules about agents"
    )
    alarm_share_pct = models.FloatField(
        "alarm at this share of a team's agents (%)",
        null=True,
        blank=True,
        help_text="rules about agents",
    )
    enabled = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["metric", "name"]

    def __str__(self):
        return self.name

    @property
    def low_is_bad(self) -> bool:
        return METRICS[self.metric][2]

    @property
    def unit(self) -> str:
        return METRICS[self.metric][1]

    @property
    def metric_label(self) -> str:
        return METRICS[self.metric][0]

    @property
    def grouped(self) -> bool:
        """About agents: one alert per team, listing them."""
        return self.metric in AGENT_STATES

    @property
    def warn_text(self) -> str:
        return limit_text(self.warn, self.unit)

    @property
    def alarm_text(self) -> str:
        return limit_text(self.alarm, self.unit)

    @property
    def group_alarm_text(self) -> str:
        """When a team's group alert turns to alarm, in words ("" when not about agents)."""
        if not self.grouped:
            return ""
        parts = []
        if self.alarm_agents:
            parts.append(f"{self.alarm_agents} agents")
        if self.alarm_share_pct is not None:
            parts.append(limit_text(self.alarm_share_pct, "%") + " of a team")
        return " or ".join(parts)


def limit_text(value: float | None, unit: str) -> str:
    """A limit as people read it: 10:00 for a duration, 80% for a share, 3 for a count."""
    if value is None:
        return ""
    if unit == "s":
        seconds = int(round(value))
        if seconds >= 3600:
            return f"{seconds // 3600}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}"
        return f"{seconds // 60}:{seconds % 60:02d}"
    if unit == "%":
        return f"{value:g}%"
    return f"{value:g}"


class Alert(models.Model):
    """One breach of one rule by one subject (a queue, an agent, the floor...), from raised
    to cleared; at most one open (not cleared) per rule and subject."""

    rule = models.ForeignKey(Rule, on_delete=models.CASCADE, related_name="alerts")
    subject = models.CharField(max_length=200)  # e.g. "queue:<id>", "agent:<id>", "floor"
    subject_label = models.CharField(max_length=200)  # e.g. "Sales queue", "Ann Lee"
    url = models.CharField(max_length=300, blank=True)  # the page it is about
    level = models.CharField(max_length=5, choices=LEVELS)
    value = models.FloatField()  # the value when it was raised, escalated or cleared last
    limit = models.FloatField()  # the limit of its level
    text = models.CharField(max_length=400)  # one sentence: what the tray and chat show
    # A group's (a rule about agents, one team): [[agent id, name], ...], the longest first,
    # and the team's agents on the floor when it last changed.
    members = models.JSONField(default=list, blank=True)
    of = models.PositiveIntegerField(default=0)
    raised_at = models.DateTimeField(db_index=True)  # the condition had held its duration
    escalated_at = models.DateTimeField(null=True, blank=True)
    acknowledged_at = models.DateTimeField(null=True, blank=True)
    acknowledged_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    cleared_at = models.DateTimeField(null=True, blank=True, db_index=True)

    class Meta:
        ordering = ["-raised_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["rule", "subject"],
                condition=Q(cleared_at__isnull=True),
                name="one_open_alert_per_rule_and_subject",
            )
        ]

    def __str__(self):
        return self.text

    @property
    def is_open(self) -> bool:
        return self.cleared_at is None

    @property
    def is_group(self) -> bool:
        return self.rule.grouped


class AlertDelivery(models.Model):
    """One POST to the chat webhook, with every attempt's outcome: one transition, or a
    digest of several folded together (`alert` is then the first of them)."""

    # None: not an alert's but a day's summary against its normal (dashboard/main/day_summary.py)
    alert = models.ForeignKey(
        Alert, null=True, blank=True, on_delete=models.CASCADE, related_name="deliveries"
    )
    transition = models.CharField(max_length=10)  # raised, escalated, cleared, digest, summary
    transitions = models.PositiveIntegerField(default=1)  # how many this POST carries
    url = models.CharField(max_length=500)
    body = models.TextField()
    attempts = models.PositiveSmallIntegerField(default=0)
    status_code = models.PositiveSmallIntegerField(null=True, blank=True)  # the last answer
    error = models.CharField(max_length=500, blank=True)
    delivered = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)  # delivered, or given up

    class Meta:
        ordering = ["-created_at"]

    def __str__(self):
        return f"{self.transition} of alert {self.alert_id}"
