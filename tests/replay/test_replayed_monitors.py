"""Who was monitoring a call is part of the replayed floor: the service's call.monitor
events are recorded, and a whole state carries the open sessions, so a replayed moment's
call rows and agent tiles say "Listened by ..." exactly as the live view did."""

import re
from dataclasses import replace
from datetime import timedelta
from zoneinfo import ZoneInfo

import pytest
from django.conf import settings

from dashboard.live.feed import LiveFeed
from dashboard.live.state import LiveState
from dashboard.replay import reader
from dashboard.replay.codec import copy_state
from dashboard.replay.recorder import Recorder, write
from dashboard.testing.feeds import T0, Events
from dashboard.testing.replay import a_morning
from dashboard.upstream import contract as c


def monitor(events, at_s, call_id, session, name, mode, state):
    body = c.CallMonitor(call_id, session, "7", name, mode, state, T0 + timedelta(seconds=at_s))
    return events.event("call.monitor", at_s, body)


def a_monitored_morning() -> list[c.Event]:
    """The morning, with Ana listening to k1 (until the call ends under her session) and
    Bo listening then whispering on k2, then hanging up; a whole state falls at 16 and 31 s
    with sessions open."""
    events = Events()
    morning = a_morning(events)
    extra = [
        monitor(events, 12, "k1", "s1", "Ana", "listen", "dialing"),
        monitor(events, 13, "k1", "s1", "Ana", "listen", "connected"),
        monitor(events, 17, "k2", "s2", "Bo", "listen", "connected"),
        monitor(events, 18, "k2", "s3", "Ana", "barge", "dialing"),
        monitor(events, 22, "k2", "s2", "Bo", "whisper", "connected"),
        monitor(events, 35, "k2", "s2", "Bo", "whisper", "ended"),
    ]
    ordered = sorted(morning + extra, key=lambda e: e.emitted_at)
    return [replace(e, seq=seq) for seq, e in enumerate(ordered, 1)]


def sessions(state: LiveState) -> tuple:
    return state.monitors, state.monitor_started


@pytest.mark.django_db(transaction=True)
def test_replayed_sessions_equal_the_live_ones_at_every_moment():
    state = LiveState(ZoneInfo("UTC"))
    recorder = Recorder(state)
    seen = {}
    for event in a_monitored_morning():
        state.apply(event)
        recorder.event(event)
        seen[event.emitted_at] = sessions(copy_state(state))
    write(recorder.items, recorder.states.take())
    assert any(s[0] for s in seen.values())
    for at, expected in seen.items():
        for when in (at, at + timedelta(milliseconds=999)):
            assert sessions(reader.state_at(when).state) == expected, when


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("at_s", [14, 20, 33])
def test_a_replayed_moment_shows_who_was_listening_as_the_live_view_did(at_s):
    state = LiveState(ZoneInfo("UTC"))
    recorder = Recorder(state)
    for event in a_monitored_morning():
        state.apply(event)
        recorder.event(event)
    write(recorder.items, recorder.states.take())
    when = T0 + timedelta(seconds=at_s)
    moment = reader.state_at(when)
    feed = LiveFeed(moment.state)
    feed.view.render_changes(feed.inbox.pending)
    figures = {
        "service_level_s": settings.SERVICE_LEVEL_THRESHOLD_S,
        **dict.fromkeys(reader.FIGURES),
    }
    feed.view.kpi_html = {(): feed.view.render.kpis(moment.state, figures, when)}
    live_parts = feed.view.full_parts()
    stamp = re.compile(r' data-seq="[^"]*" data-emitted="[^"]*"')
    replayed = reader.parts_at(moment)
    for part in ("agents", "calls"):
        assert stamp.sub("", replayed[part]) == stamp.sub("", live_parts[part]), part
    listened = {
        14: ["Ana (listen)"],
        20: ["Ana (listen)", "Bo (listen)", "Ana (barge, dialling)"],
        33: ["Ana (barge, dialling)", "Bo (whisper)"],
    }[at_s]
    shown = re.findall(r"Listened by <bdi>([^<]*)</bdi> \(([^)]*)\)", replayed["calls"])
    assert sorted(f"{n} ({m})" for n, m in shown) == sorted(listened)
    assert "Listened by" in replayed["agents"]
