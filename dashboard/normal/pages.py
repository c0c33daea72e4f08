"""The page of today against its normal: the forecast sentence, each figure's value and
normal for the last whole slot with its explanation, and what changed."""

from datetime import UTC, datetime

from dashboard.live.state import slot_of
from dashboard.reports.filling import noted
from dashboard.shared.charts import chart, zone
from dashboard.shared.filling import filling_past_pct, filling_pct

from .changes import cause_rows, what_changed
from .floor import FIGURES, day_normal, forecast, past_days
from .method import MAD_TO_SIGMA, MIN_WEEKS, WIDTH


def shown(value, unit: str) -> str:
    if value is None:
        return "–"
    if unit == "s":
        return f"{int(value) // 60}:{int(value) % 60:02d}"
    if unit == "%":
        return f"{value:.0f}%"
    return f"{value:,.0f}"


def explanation(their) -> str:
    days = ", ".join(f"{d:%a %d %b}" for d in their.days) or "none"
    if not their.ready:
        return (
            f"No normal yet: {their.samples} of the {MIN_WEEKS} same weekdays needed "
            f"(days: {days})."
        )
    return (
        f"Median of {their.samples} same weekdays at this time ({days}); band: median ± "
        f"{WIDTH:g} × {MAD_TO_SIGMA} × the median absolute deviation."
    )


def filling_of(day) -> int | None:
    """Today's fill progress when `day` is today (its slots are partial meanwhile)."""
    return filling_pct() if day == datetime.now(UTC).astimezone(zone()).date() else None


def filling_past_of(day) -> int | None:
    """The past weeks' fill progress when `day`'s normal takes in one of the days they are
    (today's `past_days`): its bands are partial meanwhile."""
    today = datetime.now(UTC).astimezone(zone()).date()
    return filling_past_pct() if set(past_days(day)) & set(past_days(today)) else None


def normal_context(now: datetime | None = None) -> dict:
    """While today is read from the service's history (`filling_pct`), its figures are
    partial: the page says so with the progress instead of a forecast, values and changes;
    while the past weeks are (`filling_past_pct`), the normal is: the page says so instead
    of a forecast and changes, and over the medians and bands."""
    now = now or datetime.now(UTC)
    filling = filling_pct()
    today = now.astimezone(zone()).date()
    normal = day_normal(today)
    last = max((at for at in normal.slots if at < slot_of(now)), default=normal.slots[0])
    rows = []
    for fig in FIGURES:
        if not fig.shown:
            continue
        their = normal.normal(fig.key, last)
        rows.append(
            {
                "label": fig.label,
                "value": shown(normal.value(fig.key, last), fig.unit),
                "median": shown(their.median, fig.unit),
                "band": (
                    f"{shown(their.low, fig.unit)} – {shown(their.high, fig.unit)}"
                    if their.ready
                    else "no normal yet"
                ),
                "explanation": explanation(their),
            }
        )
    fc = forecast(normal, now)
    changes = [
        {
            "at": c.at.astimezone(zone()),
            "sentence": (
                f"{c.label} {shown(c.value, BY_KEY_UNIT[c.key])} "
                f"{'above' if c.direction > 0 else 'below'} its normal band "
                f"{shown(c.normal.low, BY_KEY_UNIT[c.key])} – "
                f"{shown(c.normal.high, BY_KEY_UNIT[c.key])} "
                f"(median {shown(c.normal.median, BY_KEY_UNIT[c.key])})"
            ),
            "explanation": explanation(c.normal),
            "causes": cause_rows(c.causes),
        }
        for c in what_changed(normal, now)
    ]
    return {
        "today": today,
        "days": normal.days,
        "enough": len(normal.days) >= MIN_WEEKS,
        "min_weeks": MIN_WEEKS,
        "slot": last.astimezone(zone()),
        "rows": rows,
        "forecast": fc,
        "forecast_sentence": forecast_sentence(fc),
        "changes": changes,
        "charts": noted({"chart-normal": offered_chart(normal, fc)}, filling),
        "filling_pct": filling,
        "filling_past_pct": filling_past_pct(),
    }


def offered_chart(normal, fc) -> dict:
    """Calls offered per 15 minutes today, the normal's median and band (dashed), and the
    forecast for the slots still to come."""
    offered = [normal.value("offered", at) for at in normal.slots]
    their = [normal.normal("offered", at) for at in normal.slots]
    weeks = f"{fc.weeks} same weekdays"
    series = [{"label": "Offered today", "scale": "calls", "kind": "bars", "values": offered}]
    for label, values in (
        (f"Normal (median of {weeks})", [n.median for n in their]),
        ("Normal band, low", [n.low for n in their]),
        ("Normal band, high", [n.high for n in their]),
    ):
        series.append({"label": label, "scale": "calls", "values": values, "dash": True, "like": 0})
    if fc.ready:
        rest = [round(fc.rest[at], 1) if at in fc.rest else None for at in normal.slots]
        series.append({"label": "Forecast", "scale": "calls", "values": rest})
    return chart(normal.slots, series, 15 * 60)


BY_KEY_UNIT = {f.key: f.unit for f in FIGURES}


def forecast_sentence(fc) -> str:
    if not fc.ready:
        return (
            f"No forecast yet: the normal rests on {fc.weeks} same weekday(s), "
            f"{MIN_WEEKS} are needed."
        )
    off = fc.above_pct
    how = "on normal" if off == 0 else f"{abs(off)}% {'above' if off > 0 else 'below'} normal"
    return (
        f"{fc.offered:,} offered by {fc.by.astimezone(zone()):%H:%M}, {how}; "
        f"{fc.expected_total:,} expected by the end of the day "
        f"(normal {fc.normal_total:,.0f}, from {fc.weeks} same weekdays)."
    )
