"""The inbound shapes of contract 6.2 parse as untrusted: a field missing or of the wrong
type takes its default and is logged once, a row without an id is left out, nothing
crashes, and a phone number never gets past the parser whole."""

import logging

from hypothesis import given, settings
from hypothesis import strategies as st

from dashboard.upstream import inbound as up

QUEUE = {
    "id": "q1",
    "name": "Billing",
    "service_level_target_s": 10,
    "service_level_goal_pct": 90,
    "schedule_id": "s1",
    "ring_group": {"id": "g1", "name": "Billing desk", "agent_ids": ["a1", "a2"]},
}
MESSAGE = {
    "id": "m1",
    "queue_id": "q1",
    "caller_name": "Dana",
    "phone": "+44 7700 900123",
    "received_at": "2026-11-23T09:30:00Z",
    "duration_s": 42,
    "transcript": "Call me on 07700 900123 please",
    "status": "new",
    "handled_by": None,
    "handled_at": None,
}


def test_a_queue_reads_its_own_target_goal_and_ring_group():
    q = up.parse_queue(QUEUE)
    assert (q.target_s, q.goal_pct, q.schedule_id) == (10, 90, "s1")
    assert q.group_name == "Billing desk" and q.agent_ids == ("a1", "a2")


def test_bad_fields_take_their_defaults_and_are_logged_once(caplog):
    bad = {**QUEUE, "service_level_target_s": "soon", "ring_group": {"agent_ids": "a1"}}
    with caplog.at_level(logging.WARNING, "dashboard.upstream.inbound"):
        first, again = up.parse_queue(bad), up.parse_queue(bad)
    assert first == again and first.target_s == 20 and first.agent_ids == ()
    said = [r.getMessage() for r in caplog.records]
    assert sum("service_level_target_s" in m for m in said) == 1
    assert sum("agent_ids" in m for m in said) == 1
    assert up.parse_queue({**QUEUE, "id": None}) is None


def test_figures_missing_fields_are_zero():
    figures = up.parse_figures("q1", {"offered": 5, "answered": "3", "average_wait_s": -2})
    assert (figures.offered, figures.answered, figures.average_wait_s) == (5, 0, 0.0)


def test_a_message_keeps_only_the_phones_last_four_digits():
    m = up.parse_voicemail(MESSAGE)
    assert m.phone == "•••0123" and "900123" not in m.transcript and not m.handled
    assert up.parse_voicemail({**MESSAGE, "handled_by": "Bob"}).handled


def test_a_schedule_reads_its_camelcase_fields():
    s = up.parse_schedule(
        {
            "id": "s1",
            "name": "Office",
            "timezone": "UTC",
            "openNow": False,
            "nextChangeAt": "2026-11-24T08:00:00Z",
            "holidayToday": "Boxing Day",
        }
    )
    assert not s.open_now and s.next_change_at.hour == 8 and s.holiday == "Boxing Day"


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.sampled_from([*QUEUE, *MESSAGE, "openNow", "nextChangeAt"]), JSON))
def test_no_payload_crashes_a_parser(row):
    for parse in (up.parse_queue, up.parse_schedule, up.parse_voicemail):
        parse({**row, "id": "x"})
        parse(row)
    up.parse_figures("q", row)
