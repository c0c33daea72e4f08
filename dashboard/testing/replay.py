"""A recorded floor for the replay's tests: a short morning fed to the live state with the
recorder beside it, as the bridge feeds them."""

from zoneinfo import ZoneInfo

from dashboard.live.state import LiveState
from dashboard.replay.codec import copy_state
from dashboard.replay.recorder import Recorder
from dashboard.upstream import contract as c

from .feeds import Events


def a_morning(events: Events) -> list[c.Event]:
    """Two agents and their calls over 40 s of the floor: a whole state at 0, 16 and 31 s."""
    return [
        events.agent(0, "a1", "available"),
        events.agent(1, "a2", "available", name="Bo"),
        events.queue(2, "q1", 3, 40),
        events.started(10, "k1", "a1", direction="inbound"),
        events.agent(10, "a1", "ringing", call_id="k1"),
        events.updated(14, "k1", "in_progress", "a1"),
        events.agent(14, "a1", "on_call", call_id="k1"),
        events.started(16, "k2", "a2"),
        events.agent(16, "a2", "on_call", call_id="k2"),
        events.queue(20, "q1", 1, 12),
        events.ended(31, "k1", 17),
        events.agent(31, "a1", "wrap_up"),
        events.agent(38, "a1", "available"),
    ]


def floor(state: LiveState) -> tuple:
    """What the live view and its KPIs are computed from."""
    return state.agents, state.calls, state.queues, state.day.totals, state.slots


def live(events: list[c.Event]) -> tuple[LiveState, Recorder, dict]:
    """The live state fed the events with a recorder beside it, as the bridge feeds them,
    and the live floor at each event's time."""
    state = LiveState(ZoneInfo("UTC"))
    recorder = Recorder(state)
    seen = {}
    for event in events:
        state.apply(event)
        recorder.event(event)
        seen[event.emitted_at] = floor(copy_state(state))
    return state, recorder, seen
