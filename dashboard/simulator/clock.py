"""Times as the service writes them: ISO 8601 in UTC with milliseconds and a Z."""

import math
import time

_MINUTES: dict[int, str] = {}  # minute since the epoch -> "YYYY-MM-DDTHH:MM:"


def iso(ts: float) -> str:
    """`datetime.fromtimestamp(ts, UTC).isoformat(timespec="milliseconds")` with a Z, made
    from the minute's text (kept) and the seconds: a day of history writes 400,000."""
    frac, whole = math.modf(ts)
    us = round(frac * 1e6)  # as datetime rounds a timestamp: half to even, in microseconds
    if us >= 1_000_000:
        whole, us = whole + 1, us - 1_000_000
    elif us < 0:
        whole, us = whole - 1, us + 1_000_000
    minute, second = divmod(int(whole), 60)
    head = _MINUTES.get(minute)
    if head is None:
        if len(_MINUTES) > 100_000:
            _MINUTES.clear()
        head = _MINUTES[minute] = time.strftime("%Y-%m-%dT%H:%M:", time.gmtime(minute * 60))
    return f"{head}{second:02d}.{us // 1000:03d}Z"
