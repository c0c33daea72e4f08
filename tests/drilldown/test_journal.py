"""The journal (agents' states and calls from the service's events, written in batches off
the event loop) and the retention purge (daily, and `manage.py purge_expired`)."""

import asyncio
import logging
from datetime import UTC, datetime, timedelta

import pytest
from asgiref.sync import sync_to_async
from django.core.management import call_command
from django.db import OperationalError, connection
from django.utils import timezone

from dashboard.drilldown import retention
from dashboard.drilldown.journal import MAX_TRIES, Journal
from dashboard.drilldown.models import CallSeen, Note
from dashboard.quality.models import CompletedCall, Delivery, Scorecard
from dashboard.states import codec, reader
from dashboard.states.journal import StateJournal
from dashboard.states.models import AgentStates
from dashboard.testing.feeds import Events
from dashboard.testing.processes import await_until
from dashboard.upstream import contract as c

T0 = datetime(2026, 11, 23, 9, 0, tzinfo=UTC)


def a_call(events: Events) -> list[c.Event]:
    return [
        events.agent(0, "a1", "available"),
        events.started(10, "k1", "a1"),
        events.agent(10, "a1", "ringing", call_id="k1"),
        events.updated(15, "k1", "in_progress", "a1"),
        events.agent(15, "a1", "on_call", call_id="k1"),
        events.ended(315, "k1", 300),
        events.agent(315, "a1", "wrap_up", call_id="k1"),
    ]


def kept() -> list[codec.Change]:
    """Every state change the journal holds, in time order."""
    rows = AgentStates.objects.values_list("agent_id", "start", "states")
    return [x for xs in reader.changes_of(rows).values() for x in xs]


async def kept_states() -> list[str]:
    return [x.state for x in await sync_to_async(kept)()]


@pytest.mark.django_db(transaction=True)
async def test_it_writes_states_and_calls_in_one_batch_per_pass():
    journal, events = Journal(states=StateJournal()), Events()
    for event in a_call(events):
        journal.event(event)
    journal.snapshot([c.Agent("a1", "Ava", "S", "wrap_up", T0 + timedelta(seconds=315), "k1")], [])
    await journal.flush()
    assert await kept_states() == ["available", "ringing", "on_call", "wrap_up"]
    call = await CallSeen.objects.aget(call_id="k1")
    assert (call.agent_id, call.direction, call.campaign_id) == ("a1", "outbound", "camp")
    assert (call.outcome, call.duration_s) == ("sale", 300)
    assert call.started_at == T0 + timedelta(seconds=10)
    assert call.ended_at == T0 + timedelta(seconds=315)
    journal.event(events.ended(320, "k2", 5))  # a call that started before the bridge did
    journal.event(events.started(330, "k3", None, direction="inbound"))
    await journal.flush()
    assert await CallSeen.objects.filter(call_id="k2", duration_s=5).aexists()
    assert await CallSeen.objects.acount() == 3 and len(await kept_states()) == 4


@pytest.mark.django_db(transaction=True)
async def test_an_agents_stretch_is_one_row_rewritten_and_a_restart_counts_nothing_twice():
    """Each pass rewrites the agent's row of the stretch; a restarted journal, noting the
    same states again from a snapshot, adds a row the agent's day reads once."""
    journal, events = Journal(states=StateJournal()), Events()
    calls = a_call(events)
    for event in calls[:3]:
        journal.event(event)
    await journal.flush()
    for event in calls[3:]:
        journal.event(event)
    await journal.flush()
    assert await AgentStates.objects.acount() == 1  # 0 s to 315 s: one 10-minute stretch
    again = Journal(states=StateJournal())  # a restart: the snapshot's state, then the next call
    again.snapshot([c.Agent("a1", "Ava", "S", "wrap_up", T0 + timedelta(seconds=315), "k1")], [])
    again.event(events.agent(700, "a1", "available"))  # the next stretch
    await again.flush()
    assert await AgentStates.objects.acount() == 3
    day = await sync_to_async(reader.agent_changes)(
        "a1", T0 + timedelta(seconds=12), T0 + timedelta(hours=1)
    )
    assert [(x.since - T0, x.state, x.call_id) for x in day] == [
        (timedelta(seconds=10), "ringing", "k1"),  # the state the moment began in
        (timedelta(seconds=15), "on_call", "k1"),
        (timedelta(seconds=315), "wrap_up", "k1"),
        (timedelta(seconds=700), "available", ""),
    ]


@pytest.mark.django_db(transaction=True)
async def test_a_database_error_is_logged_once_and_the_notes_written_later(caplog):
    journal, events = Journal(states=StateJournal()), Events()
    table = AgentStates._meta.db_table
    await sync_to_async(rename)(table, f"{table}_away")
    try:
        with caplog.at_level(logging.WARNING, "dashboard.drilldown.journal"):
            for event in a_call(events):
                journal.event(event)
            for _ in range(MAX_TRIES - 1):  # the database stays away for a while
                await journal.flush()
    finally:
        await sync_to_async(rename)(f"{table}_away", table)
    assert len([r for r in caplog.records if "journal not written" in r.message]) == 1
    await journal.flush()
    assert len(await kept_states()) == 4 and await CallSeen.objects.acount() == 1


def rename(table, to):
    with connection.cursor() as cursor:
        cursor.execute(f'ALTER TABLE "{table}" RENAME TO "{to}"')


@pytest.mark.django_db(transaction=True)
async def test_the_bridge_runs_it_and_writes_what_is_left_when_it_stops():
    journal, stop = Journal(every=60, states=StateJournal()), asyncio.Event()
    task = asyncio.create_task(journal.run(stop))
    for event in a_call(Events()):
        journal.event(event)
    stop.set()
    await task
    assert len(await kept_states()) == 4


def old_and_new(days_old: int):
    now, old = timezone.now(), timezone.now() - timedelta(days=days_old)
    for n, at in enumerate((old, now)):
        CompletedCall.objects.create(
            call_id=f"k{n}", outcome="sale", duration_s=1, completed_at=at, transcript="t"
        )
        CallSeen.objects.create(call_id=f"k{n}", started_at=at)
        reader.rows_for("a1", [codec.Change(at, "available")])[0].save()
        Delivery.objects.create(delivery_id=f"d{n}", event="call_completed", body=b"{}")
    Delivery.objects.filter(delivery_id="d0").update(received_at=old)
    Note.objects.create(agent_id="a1", text="kept: not a call record")
    Scorecard.objects.create(
        scorecard_id="s0", score=1, max_score=2, passed=False, scored_at=old
    )  # kept: QA history is not a call record


@pytest.mark.django_db
def test_it_purges_transcripts_and_call_records_older_than_retention_days(settings):
    settings.RETENTION_DAYS = 90
    old_and_new(days_old=91)
    counts = retention.purge()
    assert counts == {
        "completed calls": 1,
        "calls seen": 1,
        "state rows": 1,
        "webhook deliveries": 1,
        "interventions": 0,  # tests/interventions/test_contract_and_audit.py purges them
    }
    assert list(CompletedCall.objects.values_list("call_id", flat=True)) == ["k1"]
    assert list(CallSeen.objects.values_list("call_id", flat=True)) == ["k1"]
    assert len(kept()) == 1 and Delivery.objects.get().delivery_id == "d1"
    assert Note.objects.exists() and Scorecard.objects.exists()


@pytest.mark.django_db
def test_the_command_purges_with_the_setting_or_the_days_given(settings, capsys):
    settings.RETENTION_DAYS = 120
    old_and_new(days_old=100)
    call_command("purge_expired")
    assert "Purged what is older than 120 days: 0 completed calls" in capsys.readouterr().out
    call_command("purge_expired", "--days", "30")
    assert "1 completed calls, 1 calls seen, 1 state rows" in capsys.readouterr().out
    assert CompletedCall.objects.count() == 1


@pytest.mark.django_db(transaction=True)
async def test_the_bridge_purges_at_start_and_then_daily(settings):
    settings.RETENTION_DAYS = 90
    await sync_to_async(old_and_new)(days_old=91)
    stop = asyncio.Event()
    task = asyncio.create_task(retention.run_retention(stop))

    async def purged():
        return not await CompletedCall.objects.filter(call_id="k0").aexists()

    # OperationalError: the purge holds the table (the tests' shared-cache SQLite)
    await await_until(purged, 10, "the old call purged", ignoring=OperationalError)
    assert await CompletedCall.objects.filter(call_id="k1").aexists()
    stop.set()
    await asyncio.wait_for(task, 5)
