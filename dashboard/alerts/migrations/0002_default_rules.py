"""The rules the product ships with: today's thresholds (settings.LIVE_THRESHOLDS, the
defaults of the live view's amber and red), plus the service's health."""

from django.conf import settings
from django.db import migrations


def defaults():
    t = settings.LIVE_THRESHOLDS
    return [
        # (name, metric, warn, alarm, hold_s, clear_s)
        ("Longest wait", "longest_wait", t["wait_warn_s"], t["wait_alarm_s"], 0, 10),
        (
            "Service level",
            "service_level",
            t["service_level_warn_pct"],
            t["service_level_alarm_pct"],
            60,
            60,
        ),
        ("Ringing too long", "agent_ringing", t["ringing_warn_s"], t["ringing_alarm_s"], 0, 5),
        ("Wrap-up too long", "agent_wrap_up", t["wrap_up_warn_s"], t["wrap_up_alarm_s"], 0, 5),
        ("Paused too long", "agent_paused", t["pause_warn_s"], t["pause_alarm_s"], 0, 5),
        ("Critical coaching alert", "critical_coaching", None, 1, 0, 0),
        ("Service connection down", "service_down", None, 30, 0, 10),
        ("Service webhooks failing", "webhooks_failing", 1, 5, 0, 60),
    ]


def add(apps, schema_editor):
    Rule = apps.get_model("alerts", "Rule")
    for name, metric, warn, alarm, hold_s, clear_s in defaults():
        Rule.objects.get_or_create(
            name=name,
            metric=metric,
            defaults={"warn": warn, "alarm": alarm, "hold_s": hold_s, "clear_s": clear_s},
        )


def remove(apps, schema_editor):
    Rule = apps.get_model("alerts", "Rule")
    for name, metric, *_ in defaults():
        Rule.objects.filter(name=name, metric=metric).delete()


class Migration(migrations.Migration):
    dependencies = [("alerts", "0001_initial")]
    operations = [migrations.RunPython(add, remove)]
