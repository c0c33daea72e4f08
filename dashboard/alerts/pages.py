"""What the alerts pages show (the views stay thin)."""

from datetime import timedelta

from django.conf import settings
from django.utils import timezone

from .models import METRICS, Alert, AlertDelivery, Rule
from .tray import in_teams, ordered, with_teams


def alerts_context(teams: tuple[str, ...] = ()) -> dict:
    """Open and recently cleared alerts; with `teams`, those about other teams' agents
    left out."""
    open_alerts = list(ordered())
    since = timezone.now() - timedelta(days=1)
    cleared = (
        Alert.objects.filter(cleared_at__gte=since)
        .select_related("rule", "acknowledged_by")
        .order_by("-cleared_at")[:100]
    )
    return {
        "open_alerts": in_teams(with_teams(open_alerts), teams),
        "cleared": in_teams(with_teams(list(cleared)), teams),
    }


def alert_context(alert: Alert) -> dict:
    return {"alert": alert}


def rules_context(form=None, editing=None) -> dict:
    return {
        "rules": Rule.objects.all(),
        "form": form,
        "editing": editing,
        "metrics": [(k, v[0], v[1], v[2], v[3]) for k, v in METRICS.items()],
    }


def deliveries_context() -> dict:
    return {
        "deliveries": AlertDelivery.objects.select_related("alert__rule")[:200],
        "webhook_url": bool(settings.ALERT_WEBHOOK_URL),
        "min_interval": settings.ALERT_WEBHOOK_MIN_INTERVAL_S,
    }
