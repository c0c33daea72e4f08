"""The one record of the agents' states: written once (by the replay's recorder when it
records, as the bridge wires it), read by the agent's day and by the replay, and kept as
long as the longer of the two keeps a day."""

from datetime import timedelta

import pytest
from asgiref.sync import sync_to_async
from django.core.management import call_command
from django.utils import timezone

from dashboard.drilldown.journal import Journal
from dashboard.replay import reader as replay
from dashboard.replay.codec import unpack, unpack_events
from dashboard.replay.models import Chunk
from dashboard.states import codec, reader
from dashboard.states.models import AgentStates, Opening
from dashboard.testing.feeds import T0, Events
from dashboard.testing.replay import a_morning, floor, live
from dashboard.upstream import contract as c


def entries() -> list[tuple[str, codec.Entry]]:
    rows = AgentStates.objects.values_list("agent_id", "start", "states")
    return [(a, x) for a, start, blob in rows for x in codec.decode(start, blob)]


def chunk_docs() -> list[tuple[dict | None, list]]:
    rows = Chunk.objects.values_list("state", "events")
    return [(state and unpack(state), unpack_events(events)) for state, events in rows]


@pytest.mark.django_db(transaction=True)
async def test_each_change_is_stored_once_and_both_readers_read_it():
    events = a_morning(Events())
    state, recorder, seen = live(events)
    journal = Journal()  # as the bridge wires them: the recorder carries the state journal
    for event in events:
        journal.event(event)
    await recorder.flush()
    await journal.flush()
    changes = [e for e in events if isinstance(e.body, c.AgentChanged)]
    kept = await sync_to_async(entries)()
    assert sorted((a, x.state, x.since) for a, x in kept) == sorted(
        (e.body.agent.agent_id, e.body.agent.status, e.body.agent.since) for e in changes
    )
    docs = await sync_to_async(chunk_docs)()
    assert docs and all(doc is None or "agents" not in doc for doc, _ in docs)
    assert not [row for _, rows in docs for row in rows if row[2] in ("a", "A")]
    day = await sync_to_async(reader.agent_changes)("a1", T0, T0 + timedelta(minutes=1))
    assert [x.state for x in day] == ["available", "ringing", "on_call", "wrap_up", "available"]
    for at, expected in seen.items():
        got = await sync_to_async(replay.state_at)(at)
        assert floor(got.state) == expected, at
    # The replay's agents are the record's: without it the floor has none.
    await AgentStates.objects.all().adelete()
    await Opening.objects.all().adelete()
    got = await sync_to_async(replay.state_at)(T0 + timedelta(seconds=38))
    assert got.state.agents == {} and got.state.calls == seen[T0 + timedelta(seconds=38)][1]


@pytest.mark.django_db
def test_the_record_is_kept_as_long_as_the_longer_of_its_readers_keeps_a_day(settings):
    settings.RETENTION_DAYS, settings.REPLAY_DAYS = 5, 10
    now = timezone.now()
    for days in (3, 8, 12):
        at = now - timedelta(days=days)
        reader.rows_for(f"a{days}", [codec.Change(at, "available")])[0].save()
    call_command("purge_expired")  # the agent's day keeps 5 days; the replay 10
    assert sorted(AgentStates.objects.values_list("agent_id", flat=True)) == ["a3", "a8"]
    settings.RETENTION_DAYS, settings.REPLAY_DAYS = 30, 2
    call_command("purge_replay")  # the replay keeps 2 days; the agent's day 30
    assert sorted(AgentStates.objects.values_list("agent_id", flat=True)) == ["a3", "a8"]
    settings.RETENTION_DAYS = 6
    call_command("purge_replay")
    assert list(AgentStates.objects.values_list("agent_id", flat=True)) == ["a3"]
