"""How far each floor figure of the last whole 15 minutes is outside its normal band, for
the alert rule "outside normal": read by the bridge every few seconds (in a thread) and
worked out once per slot, since a whole slot's figures and their normal no longer move."""

from datetime import UTC, datetime

from dashboard.live.state import SLOT, slot_of
from dashboard.shared.charts import zone
from dashboard.shared.filling import filling_past_pct, filling_pct

from .floor import FIGURES, day_normal
from .method import Normal

_kept: dict = {}  # (today, slot) -> the figures, for the slot last worked out


def beyond_pct(their: Normal, value: float | None) -> float:
    """How far `value` is outside the band, in % of the median (0: inside, or no band)."""
    side = their.outside(value)
    if not side or not their.median:
        return 0.0
    edge = their.high if side > 0 else their.low
    return round(100 * abs(value - edge) / their.median, 1)


def outside_normal(now: datetime | None = None) -> dict[str, tuple[str, float]]:
    """Figure key -> (its label, % beyond its band) for the last whole slot of today;
    figures without a band (too short a history) are left out, and all of them while
    today or the past weeks are read from the service's history (a slot or a band from
    part of it would raise alerts the floor does not deserve)."""
    if filling_pct() is not None or filling_past_pct() is not None:
        _kept.clear()  # the slot's figures move when the fill hands them in
        return {}
    now = now or datetime.now(UTC)
    last = slot_of(now) - SLOT
    today = last.astimezone(zone()).date()
    if (today, last) not in _kept:
        normal = day_normal(today)
        figures = {}
        for fig in FIGURES:
            their = normal.normal(fig.key, last) if fig.shown else None
            if their is not None and their.ready:
                label = f"{fig.label} against its normal"
                figures[fig.key] = (label, beyond_pct(their, normal.value(fig.key, last)))
        _kept.clear()
        _kept[today, last] = figures
    return _kept[today, last]
