"""Time zones for tests that need a moment of the day, whatever the hour the suite runs."""

from datetime import UTC, datetime


def late_morning() -> str:
    """A zone where it is about 11:00 now (Etc/GMT-12 to +12), so a weekday there has a busy
    morning behind it."""
    hours = (11 - datetime.now(UTC).hour + 12) % 24 - 12
    return f"Etc/GMT{-hours:+d}"
