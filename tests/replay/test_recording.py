"""The recorder (events and whole states, written in batches off the event loop), the
seek, the purge, and what the replay renders: the live view's own fragments."""

import logging
import re
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.management import call_command
from django.db import connection

from dashboard.live.feed import LiveFeed
from dashboard.live.state import Counts, LiveState
from dashboard.replay import reader
from dashboard.replay.models import Chunk, Gap
from dashboard.replay.recorder import Recorder, write
from dashboard.testing.feeds import T0, Events
from dashboard.testing.replay import a_morning, floor, live
from dashboard.upstream import contract as c


@pytest.mark.django_db(transaction=True)
async def test_it_records_in_batches_and_replays_every_moment_as_it_was_live():
    state, recorder, seen = live(a_morning(Events()))
    await recorder.flush()
    assert await Chunk.objects.acount() == 3  # a chunk per whole state, its events after it
    assert await Chunk.objects.filter(has_state=True).acount() == 3
    for at, expected in seen.items():
        for when in (at, at + timedelta(milliseconds=999)):
            got = await sync_to_async(reader.state_at)(when)
            assert floor(got.state) == expected, when
    before = await sync_to_async(reader.state_at)(T0 - timedelta(seconds=1))
    assert before.state is None
    assert await sync_to_async(reader.next_change)(T0 + timedelta(seconds=20)) == T0 + timedelta(
        seconds=31
    )
    assert await sync_to_async(reader.previous_change)(
        T0 + timedelta(seconds=31)
    ) == T0 + timedelta(seconds=20)


@pytest.mark.django_db(transaction=True)
async def test_a_database_error_is_logged_once_and_the_events_written_later(caplog):
    state, recorder, seen = live(a_morning(Events()))
    table = Chunk._meta.db_table
    await sync_to_async(rename)(table, f"{table}_away")
    try:
        with caplog.at_level(logging.INFO, "dashboard.replay.recorder"):
            for _ in range(3):  # the database stays away a while; the floor goes on
                await recorder.flush()
            more = Events()
            more.seq = 100
            event = more.agent(39, "a2", "wrap_up", name="Bo")
            state.apply(event)
            recorder.event(event)
    finally:
        await sync_to_async(rename)(f"{table}_away", table)
    assert len([r for r in caplog.records if "not recorded" in r.message]) == 1
    with caplog.at_level(logging.INFO, "dashboard.replay.recorder"):
        await recorder.flush()
    assert any("recording again" in r.message for r in caplog.records)
    got = await sync_to_async(reader.state_at)(T0 + timedelta(seconds=39))
    assert floor(got.state) == floor(state)


@pytest.mark.django_db(transaction=True)
async def test_when_too_far_behind_it_drops_notes_a_gap_and_starts_again_whole(caplog):
    state = LiveState(ZoneInfo("UTC"))
    recorder = Recorder(state, limit=2)
    events = a_morning(Events())
    with caplog.at_level(logging.WARNING, "dashboard.replay.recorder"):
        for event in events[:6]:  # the whole state at 0 s, two events waiting, three dropped
            state.apply(event)
            recorder.event(event)
        await recorder.flush()
        recorder.limit = 100  # caught up
        for event in events[6:]:
            state.apply(event)
            recorder.event(event)
        await recorder.flush()
    gap = await Gap.objects.aget()
    assert (gap.start, gap.end) == (T0 + timedelta(seconds=10), T0 + timedelta(seconds=14))
    assert gap.reason == "3 events not recorded"
    assert len([r for r in caplog.records if "dropping events" in r.message]) == 1
    inside = await sync_to_async(reader.state_at)(T0 + timedelta(seconds=12))
    assert inside.gap == gap
    after = await sync_to_async(reader.state_at)(T0 + timedelta(seconds=40))
    assert after.gap is None and floor(after.state) == floor(state)


@pytest.mark.django_db(transaction=True)
async def test_a_change_without_an_event_is_recorded_as_a_whole_state():
    """The intraday recorder gives back the day's stored counters after a restart: no event
    tells the replay, so the recorder writes the whole state at its next pass."""
    state, recorder, _ = live(a_morning(Events()))
    await recorder.flush()
    state.restore({T0: Counts(calls=7, completed=5)}, T0 + timedelta(seconds=38))
    await recorder.flush()
    assert await Chunk.objects.filter(has_state=True).acount() == 4
    got = await sync_to_async(reader.state_at)(datetime.now(UTC))  # from when it changed
    assert got.state.day.totals == state.day.totals and got.state.day.totals.calls == 9


@pytest.mark.django_db(transaction=True)
async def test_events_held_during_a_reload_show_from_the_reload_on():
    """The bridge applies the events that arrived during a reload after it, though the
    service emitted them before the reload's moment: the replay shows them after it too."""
    state = LiveState(ZoneInfo("UTC"))
    recorder = Recorder(state)
    before = datetime.now(UTC) - timedelta(seconds=1)
    agents = [c.Agent("a1", "Ava", "Sales", "paused", before, None)]
    state.load_snapshot(agents, [], datetime.now(UTC))
    recorder.snapshot(agents, [])  # stamped now
    await recorder.flush()  # the held events come in the next pass's chunk
    agent = c.Agent("a1", "Ava", "Sales", "available", before, None)
    held = c.Event("agent.status", "org", 7, before, c.AgentChanged(agent))
    state.apply(held)
    recorder.event(held)
    await recorder.flush()
    assert await Chunk.objects.filter(has_state=True).acount() == 1
    got = await sync_to_async(reader.state_at)(datetime.now(UTC))
    assert got.state.agents == state.agents and got.state.agents["a1"].status == "available"


def rename(table, to):
    with connection.cursor() as cursor:
        cursor.execute(f'ALTER TABLE "{table}" RENAME TO "{to}"')


@pytest.mark.django_db
def test_purge_keeps_replay_days_today_counted(settings):
    settings.REPLAY_DAYS = 2
    today = datetime.now(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    for start in (today - timedelta(days=2), today - timedelta(days=1), today):
        Chunk.objects.create(start=start, end=start, count=0, events=b"", has_state=False)
        Gap.objects.create(start=start, end=start + timedelta(hours=1), reason="test")
    call_command("purge_replay")
    assert sorted(Chunk.objects.values_list("start", flat=True)) == [
        today - timedelta(days=1),
        today,
    ]
    assert Gap.objects.count() == 2
    call_command("purge_replay", "--days", "1")
    assert list(Chunk.objects.values_list("start", flat=True)) == [today]


@pytest.mark.django_db
def test_the_replay_renders_the_live_views_own_fragments():
    """The same rows, KPI strip and containers the live feed renders for the same state
    (the live tiles' latency stamps aside), so it hides what the live view hides."""
    state, recorder, _ = live(a_morning(Events()))
    write(recorder.items, recorder.states.take())
    when = T0 + timedelta(seconds=20)
    moment = reader.state_at(when)
    feed = LiveFeed(moment.state)
    feed.view.render_changes(feed.inbox.pending)
    figures = {
        "service_level_s": settings.SERVICE_LEVEL_THRESHOLD_S,
        **dict.fromkeys(reader.FIGURES),
    }
    feed.view.kpi_html = {(): feed.view.render.kpis(moment.state, figures, when)}  # the whole floor
    live_parts = feed.view.full_parts()
    stamp = re.compile(r' data-seq="[^"]*" data-emitted="[^"]*"')
    replayed = reader.parts_at(moment)
    for part in ("agents", "calls", "queues", "kpis"):
        assert stamp.sub("", replayed[part]) == stamp.sub("", live_parts[part]), part
    assert 'id="agent-a1"' in replayed["agents"] and 'id="call-k2"' in replayed["calls"]
