"""How the inbound pages and the live view say ages and opening hours."""

from django.utils import timezone


def minutes(seconds) -> str:
    """A short age or duration: "45 s", "12 min", "2 h 05 min"."""
    if seconds is None:
        return "–"
    seconds = int(seconds)
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min"
    return f"{seconds // 3600} h {seconds % 3600 // 60:02d} min"


def hours_text(row: dict) -> str:
    """ "Open", "Closed · opens 08:00", "Closed · New Year's Day"."""
    if row["open"]:
        return "Open"
    if row["holiday"]:
        return f"Closed · {row['holiday']}"
    if row["opens_at"]:
        return f"Closed · opens {timezone.localtime(row['opens_at']):%H:%M}"
    return "Closed"
