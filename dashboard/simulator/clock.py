"""Times as the service writes them: ISO 8601 in UTC with milliseconds and a Z."""

from datetime import UTC, datetime


def iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
