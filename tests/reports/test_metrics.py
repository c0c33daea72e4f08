"""Each figure's formula against hand-computed cases (docs/metrics.md)."""

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from dashboard.live.state import (
    Counts,
    LiveState,
    aht_s,
    ai_share_pct,
    occupancy_pct,
    service_level_pct,
    slot_of,
)
from dashboard.reports.metrics import (
    campaign_row,
    connect_rate_pct,
    conversion_pct,
    progress_pct,
)
from dashboard.testing.feeds import T0, Events
from dashboard.upstream import contract as c


def test_it_computes_service_level_as_answered_in_threshold_over_answered():
    assert service_level_pct(Counts(inbound_answered=8, inbound_in_sl=6)) == 75.0
    assert service_level_pct(Counts(inbound_answered=3, inbound_in_sl=1)) == 33.3
    assert service_level_pct(Counts()) is None


def test_it_computes_aht_as_handle_time_over_handled_calls():
    assert aht_s(Counts(handled=4, handle_s=900.0)) == 225  # (talk + hold + wrap) / calls
    assert aht_s(Counts(handled=3, handle_s=100.0)) == 33
    assert aht_s(Counts()) is None


def test_it_computes_occupancy_as_engaged_over_engaged_plus_available():
    assert occupancy_pct(Counts(busy_s=2700.0, available_s=900.0)) == 75.0
    assert occupancy_pct(Counts(busy_s=0.0, available_s=60.0)) == 0.0
    assert occupancy_pct(Counts()) is None


def test_it_computes_the_ai_share_of_calls_ended():
    assert ai_share_pct(Counts(completed=12, ai_completed=3)) == 25.0
    assert ai_share_pct(Counts()) is None


def test_it_computes_the_outbound_figures_with_their_denominators():
    assert connect_rate_pct(7, 16) == 43.8  # connected / dial attempts
    assert conversion_pct(3, 12) == 25.0  # booked / connected
    assert progress_pct(250, 1000) == 25.0  # dialed / contacts
    assert connect_rate_pct(0, 0) is None and conversion_pct(5, 0) is None
    assert progress_pct(5, 0) is None
    assert progress_pct(1200, 1000) == 100.0  # never more than the whole list


def test_it_builds_a_campaign_row_from_the_service_counters():
    x = c.Campaign("k1", "Solar", "active", "predictive", 400, 100, 40, 10, None)
    row = campaign_row(x)
    assert (row["progress_pct"], row["connect_rate_pct"], row["conversion_pct"]) == (
        25.0,
        40.0,
        25.0,
    )


def test_it_counts_occupancy_from_the_time_agents_spend_in_each_state():
    state, events = LiveState(ZoneInfo("UTC")), Events()
    for event in (
        events.agent(0, "a1", "available"),
        events.agent(600, "a1", "ringing"),  # 600 s available
        events.agent(620, "a1", "on_call"),  # 20 s ringing
        events.agent(920, "a1", "wrap_up"),  # 300 s on a call
        events.agent(960, "a1", "paused"),  # 40 s wrap-up
        events.agent(2000, "a1", "available"),  # paused time is left out
    ):
        state.apply(event)
    # engaged 20 + 300 + 40 = 360 s; available 600 s: 360 / 960
    assert state.kpis(T0 + timedelta(seconds=2000))["occupancy_pct"] == 37.5


def test_it_keeps_the_day_per_15_minutes_with_the_same_formulas():
    state, events = LiveState(ZoneInfo("UTC"), service_level_s=20), Events()
    for event in (
        events.agent(0, "a1", "available"),
        events.started(60, "c1", "a1", direction="inbound"),  # 09:01, nobody waiting: in SL
        events.agent(61, "a1", "on_call", "c1"),
        events.ended(200, "c1", 140),
        events.agent(200, "a1", "wrap_up", "c1"),
        events.agent(260, "a1", "available"),  # 60 s wrap-up
        events.queue(1000, "q1", 2, 45),  # 09:16:40, someone waited 45 s
        events.started(1010, "c2", "a1", direction="inbound"),  # not in SL
        events.started(1020, "c3", None, ai=True),
        events.ended(1100, "c3", 80),
    ):
        state.apply(event)
    first, second = slot_of(T0), slot_of(T0 + timedelta(minutes=15))
    assert first == datetime(2026, 11, 23, 9, 0, tzinfo=UTC)
    a, b = state.slots[first], state.slots[second]
    assert (a.calls, a.inbound_answered, a.inbound_in_sl, a.handled, a.handle_s) == (
        1,
        1,
        1,
        1,
        200.0,  # 140 s talk + 60 s wrap-up
    )
    assert (service_level_pct(a), aht_s(a)) == (100.0, 200)
    assert (b.calls, service_level_pct(b), b.completed, b.ai_completed) == (2, 0.0, 1, 1)
    day = state.kpis(T0 + timedelta(seconds=1100))
    assert (day["service_level_pct"], day["aht_s"], day["ai_share_pct"]) == (50.0, 200, 50.0)
