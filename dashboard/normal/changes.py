"""What changed: each whole 15-minute slot of today where a figure left its normal band,
newest first, with its causes decomposed from what the figure is made of and ranked by
their share of the change. Nothing is reported without a band (three weeks or more) or
without its numbers.

The decomposition is multiplicative, on logarithms, so the shares add up: the inbound
pressure behind a service level is offered × handle time ÷ agents' time signed in, so
log(pressure ÷ its normal) is the sum of each part's log(value ÷ its normal); occupancy is
busy ÷ (busy + available) time; calls offered split by campaign (dials above or below each
campaign's own normal); handle time split by campaign (each campaign's calls × how far its
own handle time moved, handle.py)."""

import math
from dataclasses import dataclass, field
from datetime import datetime

from django.urls import reverse

from dashboard.live.state import slot_of

from .floor import FIGURES, DayNormal
from .handle import campaign_names, handles, minutes


@dataclass
class Cause:
    text: str
    share_pct: int
    link: str = ""
    details: list["Cause"] = field(default_factory=list)  # what it is made of, in turn
    key: str = ""  # the part it is ("offered", "aht", "staffed", …; "campaign")


@dataclass
class Change:
    at: datetime
    key: str
    label: str
    value: float
    normal: object
    direction: int  # 1 above its band, -1 below
    causes: list[Cause] = field(default_factory=list)


def cause_rows(causes: list[Cause]) -> list[dict]:
    """Causes as every page and panel shows them (templates/normal/_causes.html): plain
    values, compared to decide whether to push."""
    return [
        {"text": c.text, "share": c.share_pct, "link": c.link, "details": cause_rows(c.details)}
        for c in causes
    ]


def _ratio(normal: DayNormal, key: str, at: datetime) -> float | None:
    value, mid = normal.value(key, at), normal.normal(key, at).median
    if value is None or not mid or value <= 0:
        return None
    return value / mid


def shares_of(parts: list[tuple], sign: int) -> list[Cause]:
    """Parts as (text, value ÷ normal, link, exponent, key); each one's log term that
    pushes the same way as the change, as a share of their sum, largest first."""
    terms = []
    for text, ratio, link, power, key in parts:
        if ratio is None:
            continue
        term = power * math.log(ratio)
        if term * sign > 0:
            terms.append((text, term, link, key))
    total = sum(t for _, t, _, _ in terms)
    causes = [
        Cause(text, round(100 * t / total), link, key=key) for text, t, link, key in terms if total
    ]
    return sorted(causes, key=lambda c: -c.share_pct)


def _pct_off(ratio: float) -> str:
    off = round(100 * (ratio - 1))
    return f"{abs(off)}% {'above' if off > 0 else 'below'} normal"


def causes_of(normal: DayNormal, key: str, at: datetime, direction: int) -> list[Cause]:
    r = {k: _ratio(normal, k, at) for k in ("offered", "aht", "staffed", "busy", "available")}

    def part(k, text, power, link=""):
        return (f"{text} {_pct_off(r[k])}" if r[k] else text, r[k], link, power, k)

    if key == "service_level":  # more pressure, lower service level
        parts = [
            part("offered", "calls offered", 1),
            part("aht", "average handle time", 1),
            part("staffed", "agents' time signed in", -1),
        ]
        causes = shares_of(parts, -direction)
        for cause in causes:
            if cause.key == "aht":  # split by campaign, the way the handle time moved
                cause.details = aht_by_campaign(normal, at, 1 if r["aht"] > 1 else -1)
        return causes
    if key == "occupancy":
        return shares_of(
            [part("busy", "agents' busy time", 1), part("available", "available time", -1)],
            direction,
        )
    if key in ("offered", "completed"):  # calls = agents' time × calls per agent hour
        campaigns = by_campaign(normal, at, direction)
        r[key] = _ratio(normal, key, at)
        rate = r[key] / r["staffed"] if r[key] and r["staffed"] else None
        if rate is None:
            return campaigns
        parts = [
            part("staffed", "agents' time signed in", 1),
            (f"calls per agent hour {_pct_off(rate)}", rate, "", 1, "rate"),
        ]
        causes = shares_of(parts, direction)
        for cause in causes:
            if cause.key == "rate":
                cause.details = campaigns
        return causes
    if key == "aht":
        return aht_by_campaign(normal, at, direction)
    return []


def aht_by_campaign(normal: DayNormal, at: datetime, sign: int) -> list[Cause]:
    """The floor's handle time split by campaign: each campaign whose own handle time moved
    the way of the change (`sign`), as a share of their calls × the seconds it moved,
    largest first, linked to the campaign."""
    handled = handles(normal)
    names = campaign_names()
    moved = []
    for campaign, slots in handled.today.items():
        got, their = slots.get(at), handled.normal(campaign, at)
        if got and got.calls and their.ready and (got.aht_s - their.median) * sign > 0:
            moved.append((campaign, got, their, got.calls * (got.aht_s - their.median)))
    total = sum(part for *_, part in moved)
    causes = [
        Cause(
            f"average handle time on {names.get(campaign, campaign)} "
            f"{'up' if part > 0 else 'down'} {minutes(got.aht_s - their.median)} "
            f"({minutes(got.aht_s)} against a normal {minutes(their.median)}, "
            f"{got.calls} call{'s' if got.calls != 1 else ''})",
            round(100 * part / total),
            reverse("campaign", args=[campaign]),
            key="campaign",
        )
        for campaign, got, their, part in moved
    ]
    return sorted(causes, key=lambda c: -c.share_pct)


def by_campaign(normal: DayNormal, at: datetime, direction: int) -> list[Cause]:
    """Calls split by campaign: each campaign's dials against its own normal."""
    parts = []
    for campaign, slots in normal.campaigns.items():
        dialed, their = slots[at]
        if dialed and their.median:
            parts.append(
                (
                    f"campaign {campaign}: {dialed} dialed against a normal {their.median:g}",
                    dialed / their.median,
                    reverse("campaign", args=[campaign]),
                    1,
                    "campaign",
                )
            )
    return shares_of(parts, direction)


def what_changed(normal: DayNormal, now: datetime) -> list[Change]:
    """Each figure's moves out of its band over today's whole slots, newest first."""
    current = slot_of(now)
    found = []
    for fig in FIGURES:
        if not fig.shown:
            continue
        was = 0
        for at in normal.slots:
            if at >= current:
                break
            their = normal.normal(fig.key, at)
            value = normal.value(fig.key, at)
            side = 0 if their.noisy else their.outside(value)
            if side and side != was:
                found.append(
                    Change(
                        at,
                        fig.key,
                        fig.label,
                        value,
                        their,
                        side,
                        causes_of(normal, fig.key, at, side),
                    )
                )
            was = side
    return sorted(found, key=lambda c: (c.at, c.key), reverse=True)
