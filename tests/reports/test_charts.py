"""Chart JSON for a known day, built from records with fixed timestamps, and the writers
that keep those records (the bridge's recorder and the refresher's campaign growth)."""

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from dashboard.live.state import LiveState
from dashboard.quality.metrics import qa_trend
from dashboard.quality.models import CompletedCall, Scorecard
from dashboard.reports.metrics import campaign_chart, floor_charts, outcome_mix
from dashboard.reports.models import CampaignSlot, FloorSlot
from dashboard.reports.recorder import Recorder
from dashboard.reports.refresher import Refresher
from dashboard.testing.feeds import Events
from dashboard.upstream import contract as c

pytestmark = pytest.mark.django_db
DAY = datetime(2026, 11, 23, tzinfo=UTC)


def at(hh, mm):
    return DAY + timedelta(hours=hh, minutes=mm)


def epoch(hh, mm):
    return int(at(hh, mm).timestamp())


def completed(call_id, outcome, when):
    CompletedCall.objects.create(
        call_id=call_id, campaign_id="k1", outcome=outcome, duration_s=60, completed_at=when
    )


def test_it_builds_the_floors_day_per_15_minutes():
    FloorSlot.objects.create(
        start=at(9, 0),
        calls=10,
        completed=8,
        handled=4,
        handle_s=900,
        inbound_answered=5,
        inbound_in_sl=4,
    )
    FloorSlot.objects.create(start=at(9, 30), calls=3, completed=2)  # no inbound, none handled
    FloorSlot.objects.create(start=at(8, 45) - timedelta(days=1), calls=99)  # yesterday
    charts = floor_charts(since=DAY, now=at(9, 40))
    calls, service = charts["chart-calls"], charts["chart-service"]
    assert calls["x"] == service["x"] == [epoch(9, 0), epoch(9, 15), epoch(9, 30)]
    assert calls["step_s"] == 900 and calls["tz"] == "UTC"
    assert [s["values"] for s in calls["series"]] == [[10, 0, 3], [8, 0, 2]]
    assert [s["label"] for s in calls["series"]] == ["Calls started", "Calls ended"]
    sl, aht = service["series"]
    assert sl["values"] == [80.0, None, None] and sl["label"].endswith("(answered ≤ 20 s)")
    assert aht["values"] == [225, None, None]


def test_it_extends_the_day_to_the_current_slot_and_is_empty_before_any_call():
    assert floor_charts(since=DAY, now=at(9, 40))["chart-calls"]["x"] == []
    FloorSlot.objects.create(start=at(9, 0), calls=1)
    xs = floor_charts(since=DAY, now=at(10, 1))["chart-calls"]["x"]
    assert xs[0] == epoch(9, 0) and xs[-1] == epoch(10, 0) and len(xs) == 5


def test_it_lays_the_same_weekday_last_week_over_the_day_dashed_and_explains_it():
    week = timedelta(days=7)
    FloorSlot.objects.create(start=at(9, 15), calls=4, completed=3)
    FloorSlot.objects.create(start=at(9, 0) - week, calls=6, completed=5)
    FloorSlot.objects.create(start=at(10, 0) - week, calls=2, completed=2)  # later that day
    FloorSlot.objects.create(start=at(9, 0) - week + timedelta(days=1), calls=50)  # not Mon
    charts = floor_charts(since=DAY, now=at(9, 20))
    calls = charts["chart-calls"]
    # last week's day runs on past now: the axis shows the rest of that day
    assert calls["x"] == [epoch(9, 0), epoch(9, 15), epoch(9, 30), epoch(9, 45), epoch(10, 0)]
    by_label = {s["label"]: s for s in calls["series"]}
    assert by_label["Calls started"]["values"] == [0, 4, None, None, None]
    dashed = by_label["Calls started, last Mon"]
    assert dashed["dash"] and dashed["values"] == [6, None, None, None, 2]
    assert calls["series"][dashed["like"]]["label"] == "Calls started"
    assert calls["explains"] == "chart_calls"
    assert calls["inputs"] == [
        "4 calls started and 3 ended today (slots with data: 1)",
        "Last Mon by this time (dashed): 6 started, 5 ended",
    ]
    assert not any(
        s.get("dash") for s in floor_charts(DAY + week, at(9, 20) + week)["chart-service"]["series"]
    )  # a week on, this Monday's service slots hold no inbound calls


def test_last_weeks_slots_land_on_the_same_wall_clock_time_across_a_clock_change(settings):
    settings.TIME_ZONE = "Europe/London"
    london = ZoneInfo("Europe/London")
    monday = datetime(2026, 3, 30, tzinfo=london)  # BST since Sunday; last Monday was GMT
    FloorSlot.objects.create(start=datetime(2026, 3, 23, 9, 0, tzinfo=UTC), calls=7)  # 09:00 GMT
    now = datetime(2026, 3, 30, 9, 20, tzinfo=london)
    calls = floor_charts(since=monday, now=now)["chart-calls"]
    nine = int(datetime(2026, 3, 30, 9, 0, tzinfo=london).timestamp())  # 08:00 UTC
    dashed = next(s for s in calls["series"] if s.get("dash"))
    assert dashed["values"][calls["x"].index(nine)] == 7
    assert calls["tz"] == "Europe/London"


def test_it_says_no_data_for_last_week_when_nothing_was_stored():
    FloorSlot.objects.create(start=at(9, 0), calls=1)
    calls = floor_charts(since=DAY, now=at(9, 5))["chart-calls"]
    assert [s["label"] for s in calls["series"]] == ["Calls started", "Calls ended"]
    assert calls["inputs"][1] == "Last Mon by this time (dashed): no data"


def test_it_builds_a_campaigns_day_and_outcome_mix():
    CampaignSlot.objects.create(campaign_id="k1", start=at(10, 0), dialed=20, connected=7, booked=1)
    CampaignSlot.objects.create(campaign_id="k1", start=at(10, 30), dialed=12, connected=4)
    CampaignSlot.objects.create(campaign_id="k2", start=at(10, 15), dialed=50)
    chart = campaign_chart("k1", since=DAY, now=at(10, 35))
    assert chart["x"] == [epoch(10, 0), epoch(10, 15), epoch(10, 30)]
    assert {s["label"]: s["values"] for s in chart["series"]} == {
        "Dial attempts": [20, 0, 12],
        "Connects": [7, 0, 4],
        "Appointments": [1, 0, 0],
    }
    for n, outcome in enumerate(["sale", "callback", "callback", "not_interested"]):
        completed(f"x{n}", outcome, at(10, n))
    completed("old", "sale", DAY - timedelta(hours=1))  # yesterday
    mix = [(r["outcome"], r["n"], r["pct"]) for r in outcome_mix("k1", since=DAY)]
    assert mix == [("callback", 2, 50.0), ("not_interested", 1, 25.0), ("sale", 1, 25.0)]


def test_it_builds_the_qa_trend_per_hour():
    yesterday = at(9, 0) - timedelta(days=1)
    for n, (when, score, top) in enumerate(
        [(at(9, 5), 80, 100), (at(9, 50), 10, 20), (at(11, 0), 18, 20), (yesterday, 0, 100)]
    ):
        Scorecard.objects.create(
            scorecard_id=f"s{n}", score=score, max_score=top, passed=True, scored_at=when
        )
    chart = qa_trend(since=DAY)
    assert chart["x"] == [epoch(9, 0), epoch(11, 0)] and chart["step_s"] == 3600
    average, count = chart["series"]
    assert average["values"] == [65.0, 90.0]  # (80 % + 50 %) / 2; 18 / 20
    assert count["values"] == [2, 1]


async def _record(recorder):
    return await recorder.record()


# The recorder's database work drops connections in a transaction (Channels'
# database_sync_to_async): the test's own transaction would be closed under it.
@pytest.mark.django_db(transaction=True)
def test_it_adds_what_grew_to_the_stored_slots_and_never_counts_twice():
    from asgiref.sync import async_to_sync

    state, events = LiveState(ZoneInfo("UTC")), Events()
    recorder = Recorder(state)
    FloorSlot.objects.create(start=at(9, 0), calls=5)  # written before a restart
    state.apply(events.started(10, "c1"))
    state.apply(events.started(20, "c2"))
    assert async_to_sync(_record)(recorder) is True
    assert async_to_sync(_record)(recorder) is False  # nothing grew: nothing written
    state.apply(events.started(30, "c3"))
    async_to_sync(_record)(recorder)
    assert FloorSlot.objects.get(start=at(9, 0)).calls == 8  # 5 before the restart + 3


def test_it_adds_campaign_growth_between_pulls_to_the_current_slot():
    refresher = Refresher(rest=None, feed=None)

    def pull(dialed, connected, booked):
        return [
            c.Campaign("k1", "Solar", "active", "predictive", 900, dialed, connected, booked, None)
        ]

    refresher.record_campaigns(pull(100, 30, 5), at(10, 2))  # the first pull sets the baseline
    assert not CampaignSlot.objects.exists()
    refresher.record_campaigns(pull(110, 33, 5), at(10, 5))
    refresher.record_campaigns(pull(115, 35, 6), at(10, 14))
    refresher.record_campaigns(pull(120, 35, 6), at(10, 16))
    rows = [(r.start, r.dialed, r.connected, r.booked) for r in CampaignSlot.objects.all()]
    assert rows == [(at(10, 0), 15, 5, 1), (at(10, 15), 5, 0, 0)]


# The recorder's database work drops connections in a transaction (Channels'
# database_sync_to_async): the test's own transaction would be closed under it.
@pytest.mark.django_db(transaction=True)
def test_the_recorder_says_once_that_the_service_is_away_and_fills_once_it_is_back(caplog):
    from asgiref.sync import async_to_sync

    from dashboard.upstream.errors import UpstreamError

    now = datetime.now(UTC)
    state, away = LiveState(ZoneInfo("UTC")), [True]

    async def list_calls(since, agent_ids):
        if away[0]:
            raise UpstreamError("GET /calls failed after 2 attempts: connection refused")
        started = now - timedelta(seconds=5)
        ended = c.Call("k1", "a1", None, "outbound", "ended", False, started, ended_at=now)
        return [ended], None

    recorder = Recorder(state, list_calls=list_calls)
    state.load_snapshot([], [], now)
    async_to_sync(recorder.attempt)(recorder.restore)
    for _ in range(3):
        async_to_sync(recorder.attempt)(recorder.fill_gaps)
    said = [r for r in caplog.records if "fill_gaps" in r.getMessage()]
    assert len(said) == 1 and said[0].levelname == "WARNING" and not said[0].exc_info
    away[0] = False
    async_to_sync(recorder.attempt)(recorder.fill_gaps)
    assert state.kpis(datetime.now(UTC))["completed_today"] == 1
    assert "day figures: fill_gaps done again" in caplog.text
