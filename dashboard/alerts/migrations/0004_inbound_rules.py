"""The inbound side's metrics, and their rules the product ships with: calls reaching a
queue whose schedule says closed, and a voicemail message left unhandled too long."""

from django.db import migrations, models

RULES = [
    # (name, metric, warn, alarm, hold_s, clear_s)
    ("Calls while a queue is closed", "queue_closed_calls", None, 1, 0, 10),
    ("Voicemail waiting too long", "voicemail_age", 15 * 60, 30 * 60, 0, 10),
]


def add(apps, schema_editor):
    Rule = apps.get_model("alerts", "Rule")
    for name, metric, warn, alarm, hold_s, clear_s in RULES:
        Rule.objects.get_or_create(
            name=name,
            metric=metric,
            defaults={"warn": warn, "alarm": alarm, "hold_s": hold_s, "clear_s": clear_s},
        )


def remove(apps, schema_editor):
    Rule = apps.get_model("alerts", "Rule")
    for name, metric, *_ in RULES:
        Rule.objects.filter(name=name, metric=metric).delete()


class Migration(migrations.Migration):
    dependencies = [("alerts", "0003_grouped_agent_alerts")]
    operations = [
        migrations.AlterField(
            model_name="rule",
            name="metric",
            field=models.CharField(
                choices=[
                    ("longest_wait", "Longest wait in a queue"),
                    ("calls_waiting", "Calls waiting in a queue"),
                    ("service_level", "Service level today"),
                    ("agents_available", "Agents available"),
                    ("agent_ringing", "An agent ringing too long"),
                    ("agent_wrap_up", "An agent in wrap-up too long"),
                    ("agent_paused", "An agent paused too long"),
                    ("critical_coaching", "Open critical coaching alerts"),
                    ("service_down", "Service connection down"),
                    ("webhooks_failing", "Service webhook deliveries failing (last 15 min)"),
                    ("pending_leads", "Pending leads of a campaign"),
                    ("queue_closed_calls", "Calls reaching a closed queue"),
                    ("voicemail_age", "Oldest voicemail not handled"),
                ],
                max_length=30,
            ),
        ),
        migrations.RunPython(add, remove),
    ]
