"""Today against its normal, from 15-minute slots of known shapes on the same weekday of
past weeks: a normal day reports nothing, a queue surge and a team pausing are reported
at the slot they began with the right cause first, too short a history says so, and the
forecast scales the rest of the day by how today has run."""

import json
import re
from datetime import UTC, datetime, timedelta
from html import unescape
from zoneinfo import ZoneInfo

import pytest

from dashboard.alerts.engine import RAISED, Engine, Floor, RuleSpec
from dashboard.alerts.models import ALARM, WARN, Metric
from dashboard.live.state import LiveState
from dashboard.normal.outside import outside_normal
from dashboard.reports.models import CampaignSlot, FloorSlot
from dashboard.shared.filling import store_progress


def midnight(zone, weeks_ago: int) -> datetime:
    today = datetime.now(zone).date() - timedelta(days=7 * weeks_ago)
    return datetime.combine(today, datetime.min.time(), zone)


def slot(calls, agents_s=9000.0, busy=0.8, sl=(18, 20), aht=300):
    """One slot's counters: `calls` offered and handled, `agents_s` of agents' time signed
    in of which `busy` on calls, service level `sl` (in time, answered)."""
    return {
        "calls": calls,
        "completed": calls,
        "handled": calls,
        "handle_s": calls * aht,
        "inbound_answered": sl[1],
        "inbound_in_sl": sl[0],
        "busy_s": agents_s * busy,
        "available_s": agents_s * (1 - busy),
    }


def day(zone, weeks_ago, calls=40, until=None, shape=None):
    """A day of 15-minute slots of about `calls` offered each (weeks vary a little), to
    `until` (a wall-clock hour, today) or the whole day; `shape(hour)` gives other
    counters from a time on, and campaign k1 dials half of the calls."""
    start = midnight(zone, weeks_ago)
    wobble = (0, -2, 2, 1, -1)[weeks_ago]
    for n in range(96):
        at = start + timedelta(minutes=15 * n)
        hour = n / 4
        if until is not None and hour >= until:
            break
        counts = (shape and shape(hour)) or slot(calls + wobble)
        FloorSlot.objects.create(start=at, **counts)
        CampaignSlot.objects.create(campaign_id="k1", start=at, dialed=counts["calls"] // 2)


def page(client) -> str:
    return unescape(" ".join(client.get("/normal/").content.decode().split()))


def now_hour(zone) -> float:
    now = datetime.now(zone)
    return now.hour + now.minute / 60


def test_a_normal_day_reports_nothing_and_forecasts_the_normal(zone, bob, client_for):
    for weeks in (1, 2, 3, 4):
        day(zone, weeks)
    day(zone, 0, until=now_hour(zone))
    html = page(client_for(bob))
    assert "Nothing outside its normal band today." in html
    assert "offered by" in html and ", on normal; 3,840 expected by the end of the day" in html
    assert "from 4 same weekdays" in html
    assert "Median of 4 same weekdays at this time" in html
    assert '<a href="/normal/" aria-current="page">Normal</a>' in html  # in the navigation
    assert "(normal 3,840," in html  # 96 slots of the median of 38, 42, 41 and 39
    # The chart: today's bars against the median, the band and the forecast.
    data = json.loads(re.search(r'<script id="chart-normal" [^>]*>(.*?)</script>', html)[1])
    series = {s["label"]: s["values"] for s in data["series"]}
    assert len(data["x"]) == 96 and set(series["Normal (median of 4 same weekdays)"]) == {40}
    assert {round(v, 1) for v in series["Normal band, low"]} == {33.7}  # 40 - √40
    assert series["Offered today"][0] == 40 and series["Offered today"][-1] is None
    forecast = [v for v in series["Forecast"] if v is not None]
    assert forecast and set(forecast) == {40}  # today on normal: the normal


def test_a_queue_surge_is_reported_with_offered_first(zone, bob, client_for):
    for weeks in (1, 2, 3, 4):
        day(zone, weeks)
    surge_from = now_hour(zone) // 1 - 1  # a whole hour, an hour or more ago

    def surge(hour):
        return slot(80, sl=(12, 20)) if hour >= surge_from else None

    day(zone, 0, until=now_hour(zone), shape=surge)
    html = page(client_for(bob))
    at = f"{int(surge_from):02d}:00"
    assert f"<time>{at}</time> Service level 60% below its normal band" in html
    assert f"<time>{at}</time> Calls offered 80 above its normal band" in html
    sl = html.split(f"<time>{at}</time> Service level")[1].split("</ul>")[0]
    assert "calls offered 100% above normal (100% of the change)" in sl
    offered = html.split(f"<time>{at}</time> Calls offered")[1].split("</ul>")[0]
    assert 'href="/campaigns/k1/">campaign k1: 40 dialed against a normal 19.5' in offered
    assert "% above normal;" in html  # the forecast runs above the normal


def test_a_team_pausing_is_reported_with_agents_time_first(zone, bob, client_for):
    for weeks in (1, 2, 3, 4):
        day(zone, weeks)
    pause_from = now_hour(zone) // 1 - 1

    def paused(hour):  # a third of the agents' time gone; the rest busier
        return slot(40, agents_s=6000.0, busy=1.0, sl=(10, 20)) if hour >= pause_from else None

    day(zone, 0, until=now_hour(zone), shape=paused)
    html = page(client_for(bob))
    at = f"{int(pause_from):02d}:00"
    sl = html.split(f"<time>{at}</time> Service level 50% below its normal band")[1]
    first = sl.split("<li>")[1]
    assert first.strip().startswith("agents' time signed in 33% below normal (100% of the change)")
    assert "Calls offered" not in html.split("What changed")[1]  # offered stayed normal


def test_too_short_a_history_says_so(zone, bob, client_for):
    for weeks in (1, 2):
        day(zone, weeks)

    def surge(hour):
        return slot(80, sl=(12, 20))

    day(zone, 0, until=now_hour(zone), shape=surge)
    html = page(client_for(bob))
    assert "No normal yet: the dashboard holds 2 of the 3 same weekdays it needs." in html
    assert "No forecast yet: the normal rests on 2 same weekday(s), 3 are needed." in html
    assert "no normal yet" in html  # in the band column
    assert "Nothing outside its normal band today." in html


def test_a_figure_outside_its_band_raises_an_outside_normal_alert_once_held(zone, db):
    for weeks in (1, 2, 3, 4):
        day(zone, weeks)
    day(zone, 0, until=now_hour(zone), shape=lambda hour: slot(80, sl=(12, 20)))
    figures = outside_normal()  # what the bridge hands the alert rules
    # Offered: 80 against a band of 40 ± the square root of 40 (wider than 2 × 1.4826 ×
    # the MAD of 38, 39, 41, 42): 33.7 calls beyond it, 84.2% of the median.
    assert figures["offered"] == ("Calls offered against its normal", 84.2)
    assert figures["aht"] == ("Average handle time against its normal", 0.0)
    rule = RuleSpec(1, "Outside normal", Metric.OUTSIDE_NORMAL, warn=1, alarm=50, hold_s=60)
    engine = Engine([rule])
    floor = Floor(LiveState(ZoneInfo("UTC")), outside={"normal": figures})
    now = datetime.now(UTC)
    assert engine.evaluate(floor, now) == []  # not held long enough yet
    raised = {t.subject: t for t in engine.evaluate(floor, now + timedelta(seconds=61))}
    assert "normal:aht" not in raised and "normal:occupancy" not in raised
    offered = raised["normal:offered"]
    assert (offered.kind, offered.level, offered.value, offered.url) == (
        RAISED,
        ALARM,
        84.2,
        "/normal/",
    )
    assert raised["normal:service_level"].level == WARN  # 60% against 85–95%: 27.8%
    assert raised["normal:service_level"].value == pytest.approx(100 * 25 / 90, abs=0.1)


def test_nothing_is_judged_outside_its_normal_while_the_history_is_read(zone, db):
    for weeks in (1, 2, 3, 4):
        day(zone, weeks)
    day(zone, 0, until=now_hour(zone), shape=lambda hour: slot(80, sl=(12, 20)))
    try:
        for today, past in ((30, None), (None, 40)):  # as the bridge's mirror writes them
            store_progress(today, past)
            assert outside_normal() == {}
    finally:
        store_progress(None, None)
    assert outside_normal()["offered"] == ("Calls offered against its normal", 84.2)
