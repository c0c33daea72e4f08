"""Rules about agents raise one alert per team listing its agents; the default rules' limits
fitted to that (docs/alerts.md, Defaults): a team's alert lists the agents whose tiles are
red, turns to alarm when a third of the team is, and clears after five quiet minutes."""

from django.conf import settings
from django.db import migrations, models
from django.utils import timezone

AGENT_RULES = {  # metric: (the tile's red, in LIVE_THRESHOLDS)
    "agent_ringing": "ringing_alarm_s",
    "agent_wrap_up": "wrap_up_alarm_s",
    "agent_paused": "pause_alarm_s",
}
NAMES = {
    "agent_ringing": "Ringing too long",
    "agent_wrap_up": "Wrap-up too long",
    "agent_paused": "Paused too long",
}
SHARE_PCT, CLEAR_S = 33, 300


def fit(apps, schema_editor):
    """The shipped agent rules, where a Manager has not changed them, grouped and fitted; the
    alerts still open about single agents closed (their teams' groups take them up)."""
    Rule, Alert = apps.get_model("alerts", "Rule"), apps.get_model("alerts", "Alert")
    t = settings.LIVE_THRESHOLDS
    for metric, red in AGENT_RULES.items():
        warn, alarm = t[red.replace("alarm", "warn")], t[red]
        Rule.objects.filter(
            name=NAMES[metric], metric=metric, warn=warn, alarm=alarm, hold_s=0, clear_s=5
        ).update(warn=t[red], alarm=None, alarm_share_pct=SHARE_PCT, clear_s=CLEAR_S)
    Alert.objects.filter(
        cleared_at__isnull=True, subject__startswith="agent:", rule__metric__in=list(AGENT_RULES)
    ).update(cleared_at=timezone.now())


def unfit(apps, schema_editor):
    Rule = apps.get_model("alerts", "Rule")
    t = settings.LIVE_THRESHOLDS
    for metric, red in AGENT_RULES.items():
        Rule.objects.filter(
            name=NAMES[metric], metric=metric, warn=t[red], alarm=None, clear_s=CLEAR_S
        ).update(warn=t[red.replace("alarm", "warn")], alarm=t[red], clear_s=5)


class Migration(migrations.Migration):
    dependencies = [
        ("alerts", "0002_default_rules"),
    ]

    operations = [
        migrations.AddField(
            model_name="alert",
            name="members",
            field=models.JSONField(blank=True, default=list),
        ),
        migrations.AddField(
            model_name="alert",
            name="of",
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.AddField(
            model_name="alertdelivery",
            name="transitions",
            field=models.PositiveIntegerField(default=1),
        ),
        migrations.AddField(
            model_name="rule",
            name="alarm_agents",
            field=models.PositiveIntegerField(
                blank=True,
                help_text="rules about agents",
                null=True,
                verbose_name="alarm at this many agents",
            ),
        ),
        migrations.AddField(
            model_name="rule",
            name="alarm_share_pct",
            field=models.FloatField(
                blank=True,
                help_text="rules about agents",
                null=True,
                verbose_name="alarm at this share of a team's agents (%)",
            ),
        ),
        migrations.RunPython(fit, unfit),
    ]
