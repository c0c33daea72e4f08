from datetime import datetime, time

from django.utils import timezone


def start_of_today() -> datetime:
    """00:00 today in the organisation's zone (TIME_ZONE)."""
    return timezone.make_aware(datetime.combine(timezone.localdate(), time.min))
