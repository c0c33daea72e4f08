"""The day's figures as the live state keeps them: states under way counted up to now,
the day rebuilt from stored slots and the service's call list, the same time last week,
and the organisation's midnight (daylight-saving days included)."""

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from dashboard.live.state import Counts, LiveState, same_time_last_week, slot_of
from dashboard.testing.feeds import T0, Events
from dashboard.upstream import contract as c

LONDON = ZoneInfo("Europe/London")


def agent(agent_id, status, since, call_id=None):
    return c.Agent(agent_id, agent_id.title(), "Sales", status, since, call_id)


def call(call_id, started, ended=None, agent_id="a1", ai=False, duration_s=None):
    return c.Call(
        call_id,
        None if ai else agent_id,
        None,
        "outbound",
        "ended" if ended else "in_progress",
        ai,
        started,
        ended_at=ended,
        duration_s=duration_s,
    )


def loaded_state(statuses: dict, since: datetime, now: datetime, tz=UTC) -> LiveState:
    """A floor loaded from the service: each agent in its state since `since`."""
    state = LiveState(tz)
    state.load_snapshot([agent(a, s, since) for a, s in statuses.items()], [], now)
    return state


# ---- States under way count up to now ---------------------------------------------------
def test_a_floor_on_calls_for_ten_minutes_shows_occupancy_near_100_percent():
    now = T0 + timedelta(minutes=10)
    state = loaded_state({f"a{n}": "on_call" for n in range(40)}, T0, now)
    kpis = state.kpis(now)
    assert kpis["occupancy_pct"] == 100.0
    assert kpis["ongoing"]["states"] == 40
    # one of them was available all along: 39 × 600 s busy of 40 × 600 s
    state = loaded_state({**{f"a{n}": "on_call" for n in range(39)}, "free": "available"}, T0, now)
    assert state.kpis(now)["occupancy_pct"] == 97.5


def test_occupancy_moves_between_events_as_time_passes():
    state = loaded_state({"a1": "on_call", "a2": "available"}, T0, T0)
    state.apply(Events().agent(300, "a2", "ringing"))  # a2: 300 s available, then busy
    at = T0 + timedelta(seconds=600)
    assert state.kpis(at)["occupancy_pct"] == 75.0  # (600 + 300) ÷ (900 + 300)
    later = T0 + timedelta(seconds=1200)
    assert state.kpis(later)["occupancy_pct"] == 87.5  # (1200 + 900) ÷ 2400


def test_a_wrap_up_under_way_counts_in_aht_up_to_now():
    events, state = Events(), LiveState(UTC)
    state.apply(events.started(0, "k1", "a1"))
    state.apply(events.ended(100, "k1", 100))
    state.apply(events.agent(100, "a1", "wrap_up", "k1"))
    assert state.kpis(T0 + timedelta(seconds=100))["aht_s"] == 100
    assert state.kpis(T0 + timedelta(seconds=160))["aht_s"] == 160  # 60 s of wrap-up so far
    state.apply(events.agent(180, "a1", "available"))
    assert state.kpis(T0 + timedelta(seconds=900))["aht_s"] == 180  # ended: counted once


def test_a_state_is_split_over_the_slots_it_spans():
    events, state = Events(), LiveState(UTC)
    state.apply(events.agent(10 * 60, "a1", "available"))  # 09:10
    state.apply(events.agent(40 * 60, "a1", "ringing"))  # 09:40
    by_slot = {s.strftime("%H:%M"): x.available_s for s, x in state.slots.items()}
    assert by_slot == {"09:00": 300.0, "09:15": 900.0, "09:30": 600.0}


def test_a_reload_after_a_gap_counts_the_old_state_up_to_the_last_event_seen():
    events = Events()
    state = loaded_state({"a1": "available"}, T0, T0)
    state.apply(events.agent(60, "a2", "paused"))  # the last event before the gap
    gap_end = T0 + timedelta(seconds=600)
    state.load_snapshot([agent("a1", "on_call", T0 + timedelta(seconds=300))], [], gap_end)
    day = state.today(gap_end)[0]
    # a1: available 0..60 s counted (events followed until then), on call 300..600 s
    # counted as under way; 60..300 s is the gap nobody saw
    assert (day.available_s, day.busy_s) == (60.0, 300.0)


# ---- The day survives a restart -----------------------------------------------------------
def test_stored_slots_give_the_day_back_and_events_add_to_them():
    state = LiveState(UTC, service_level_s=20)
    stored = {
        T0: Counts(calls=10, completed=8, handled=6, handle_s=1200, ai_completed=2),
        T0 + timedelta(minutes=15): Counts(inbound_answered=4, inbound_in_sl=3, busy_s=900),
        T0 - timedelta(days=1): Counts(completed=99),  # yesterday's: not today's figures
    }
    now = T0 + timedelta(minutes=20)
    state.restore(stored, now)
    kpis = state.kpis(now)
    assert (kpis["completed_today"], kpis["aht_s"], kpis["ai_share_pct"]) == (8, 200, 25.0)
    assert kpis["service_level_pct"] == 75.0 and kpis["occupancy_pct"] == 100.0
    events = Events()
    state.apply(events.started(21 * 60, "k9", "a1"))
    state.apply(events.ended(22 * 60, "k9", 60))
    assert state.kpis(now)["completed_today"] == 9
    assert state.origin.restored_slots == 2


def test_the_services_call_list_fills_a_gap_without_counting_anything_twice():
    events, state = Events(), LiveState(UTC)
    at = lambda minutes: T0 + timedelta(minutes=minutes)  # noqa: E731
    # 09:00-09:05 counted by an earlier process (stored): k1, k2 ended
    state.restore({T0: Counts(calls=2, completed=2, handled=2, handle_s=240)}, at(5))
    # this process follows the floor from 09:20 on: k5 starts and ends
    state.apply(events.started(20 * 60, "k5", "a1"))
    state.apply(events.ended(21 * 60, "k5", 60))
    listed = [
        call("k1", at(0), at(2), duration_s=100),  # stored already
        call("k2", at(1), at(3), duration_s=100),  # stored already
        call("k3", at(16), at(18), duration_s=90),  # in the gap: missed
        call("k4", at(9), at(17), ai=True),  # in the gap, AI: missed
        call("k5", at(20), at(21), duration_s=60),  # counted by this process
        call("k6", at(22)),  # still live: started only
    ]
    state.fill(listed, at(23))
    kpis = state.kpis(at(23))
    assert kpis["completed_today"] == 5  # k1 k2 (stored) k3 k4 (filled) k5 (events)
    assert kpis["day"].handled == 4 and kpis["day"].ai_completed == 1
    assert kpis["day"].handle_s == 240 + 90 + 60
    assert kpis["day"].calls == 2 + 3 + 1  # k1 k2 stored; k3 k4 k6 filled; k5 events
    assert state.origin.filled_calls == 2
    state.fill(listed, at(23))  # a second reload lists the same calls: nothing added
    assert state.kpis(at(23))["completed_today"] == 5


def test_a_capped_list_never_lowers_what_the_stored_slots_say():
    state = LiveState(UTC)
    state.restore({T0: Counts(completed=7, handled=7, handle_s=700)}, T0 + timedelta(hours=1))
    listed = [call("k1", T0, T0 + timedelta(minutes=1), duration_s=60)]  # the list lacks 6
    state.fill(listed, T0 + timedelta(hours=1), partial_before=T0 + timedelta(minutes=30))
    kpis = state.kpis(T0 + timedelta(hours=1))
    assert kpis["completed_today"] == 7 and kpis["aht_s"] == 100
    assert state.origin.service_partial_before == T0 + timedelta(minutes=30)


# ---- The same time last week ----------------------------------------------------------------
def test_it_compares_with_the_same_time_last_week_from_the_stored_slots():
    state, week = LiveState(UTC), timedelta(days=7)
    state.set_last_week(
        {
            T0 - week: Counts(completed=10, inbound_answered=10, inbound_in_sl=9),
            T0 - week + timedelta(minutes=15): Counts(completed=6),
            T0 - week + timedelta(hours=5): Counts(completed=50),  # later in the day
        }
    )
    now = T0 + timedelta(minutes=20)  # a third of the 09:15 slot has gone by
    state.restore({T0: Counts(completed=20, inbound_answered=10, inbound_in_sl=10)}, now)
    vs = state.kpis(now)["vs_last_week"]
    assert vs["completed_today"] == 20 - 12  # 10 + 6 ÷ 3
    assert vs["service_level_pct"] == 10.0  # 100 % against 90 %
    assert vs["aht_s"] is None  # no handled calls either day


def test_it_says_no_data_when_nothing_was_stored_last_week():
    state = LiveState(UTC)
    assert state.kpis(T0)["vs_last_week"] is None
    state.set_last_week({T0 - timedelta(days=7) + timedelta(hours=3): Counts(completed=5)})
    assert state.kpis(T0)["vs_last_week"] is None  # stored, but only later in that day


def test_last_week_is_the_same_wall_clock_time_across_a_clock_change():
    now = datetime(2026, 4, 1, 9, 0, tzinfo=UTC)  # 10:00 BST
    then = same_time_last_week(now, LONDON)
    assert then.astimezone(UTC) == datetime(2026, 3, 25, 10, 0, tzinfo=UTC)  # 10:00 GMT


# ---- Day boundaries in the organisation's zone ---------------------------------------------
def test_the_day_starts_at_local_midnight_and_cuts_states_that_began_before():
    state = LiveState(LONDON)
    before = datetime(2026, 6, 30, 22, 50, tzinfo=UTC)  # 23:50 BST on the 30th
    midnight = datetime(2026, 6, 30, 23, 0, tzinfo=UTC)  # 00:00 BST on 1 July
    state.load_snapshot([agent("a1", "available", before)], [], before)
    e = c.Event("call.ended", "o", 1, before, c.CallEnded("k0", before, "sale", 60))
    state.apply(e)
    assert state.kpis(before)["completed_today"] == 1
    after = midnight + timedelta(minutes=10)
    kpis = state.kpis(after)  # no event since: the day rolls with `now`
    assert state.day.start == midnight and kpis["completed_today"] == 0
    assert kpis["day"].available_s == 600.0  # 00:00 to 00:10 only


@pytest.mark.parametrize(
    ("day", "hours", "start_utc"),
    [
        (datetime(2026, 3, 29), 23, datetime(2026, 3, 29, 0, 0, tzinfo=UTC)),  # GMT → BST
        (datetime(2026, 10, 25), 25, datetime(2026, 10, 24, 23, 0, tzinfo=UTC)),  # BST → GMT
    ],
)
def test_a_day_with_a_clock_change_runs_from_midnight_to_midnight(day, hours, start_utc):
    state = LiveState(LONDON)
    start = state.start_of_day(start_utc + timedelta(minutes=1))
    assert start == start_utc and start.astimezone(LONDON).hour == 0
    end = start_utc + timedelta(hours=hours)  # the next local midnight
    assert end.astimezone(LONDON).strftime("%d %H:%M") == f"{day.day + 1:02d} 00:00"
    state.load_snapshot([agent("a1", "on_call", start_utc)], [], start_utc)
    last = end - timedelta(seconds=1)
    ended = c.Event("call.ended", "o", 1, last, c.CallEnded("k1", last, "sale", 30))
    state.apply(ended)
    kpis = state.kpis(last)
    assert kpis["completed_today"] == 1
    assert kpis["day"].busy_s == hours * 3600 - 1  # the whole local day, 23 or 25 hours
    assert state.kpis(end)["completed_today"] == 0  # the next day
    assert slot_of(end + timedelta(minutes=7)) == end  # slots are the local quarter hours


# ---- What the tiles say -----------------------------------------------------------------------
def test_the_tiles_show_the_difference_to_last_week_or_say_no_data():
    from html import unescape

    from dashboard.live.render import Renderer

    state, week = LiveState(UTC), timedelta(days=7)
    now = T0 + timedelta(minutes=15)
    state.restore({T0: Counts(completed=12, handled=10, handle_s=1500, busy_s=600)}, now)
    figures = {"service_level_s": 20}
    shown = unescape(Renderer().kpis(state, figures, now))
    assert shown.count("last Mon: no data") == 4  # service level, completed, occupancy, AHT
    state.set_last_week({T0 - week: Counts(completed=9, handled=9, handle_s=900, busy_s=600)})
    shown = unescape(Renderer().kpis(state, figures, now))
    assert "+3 vs last Mon" in shown  # completed: 12 against 9
    assert "+0:50 vs last Mon" in shown  # AHT: 2:30 against 1:40
    assert "0 pts vs last Mon" in shown  # occupancy: 100 % both days
    assert "last Mon: no data" in shown  # service level: no inbound call either day
    assert "12 calls ended: 10 agent-handled" in shown  # the completed panel's inputs
    assert "Counted from 1 15-minute slot stored earlier today" in shown
