"""The outbound shapes of contract section 5 parse into typed rows; a phone number never
gets past the parser whole."""

import contextlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dashboard.upstream import contract as c
from dashboard.upstream.errors import ContractError

QUEUE = {
    "campaignId": "k1",
    "pending": 120,
    "retryScheduled": 30,
    "exhausted": 7,
    "nextAttemptAt": "2026-11-23T09:30:00Z",
}
CALLBACK = {
    "id": "cb1",
    "campaign_id": "k1",
    "agent_id": "a1",
    "contact_name": "Sam Reid",
    "phone": "+44 7700 900123",
    "due_at": "2026-11-23T10:00:00+00:00",
    "status": "due",
}
BOOKING = {
    "id": "pb1",
    "call_id": "call1",
    "campaign_id": "k1",
    "contact_name": "Alex Byrne",
    "reason": "No free slot",
    "created_at": "2026-11-23T08:00:00Z",
}
AI = {"campaign_id": "k4", "active": True, "concurrent_calls": 4, "max_concurrent": 6}


def test_it_reads_the_dialer_queue_as_a_bare_camelcase_list():
    [q] = c.dialer_queue_from([QUEUE])
    assert (q.campaign_id, q.pending, q.retry_scheduled, q.exhausted) == ("k1", 120, 30, 7)
    assert q.next_attempt_at.isoformat() == "2026-11-23T09:30:00+00:00"
    with pytest.raises(ContractError):
        c.dialer_queue_from({"data": [QUEUE]})  # an envelope where a bare list is promised


def test_it_keeps_only_the_last_four_digits_of_a_callbacks_phone():
    [cb] = c.callbacks_from({"data": [CALLBACK], "count": 1})
    assert (cb.id, cb.agent_id, cb.contact_name, cb.status) == ("cb1", "a1", "Sam Reid", "due")
    assert cb.phone_last4 == "0123"
    assert "900123" not in repr(cb) and not hasattr(cb, "phone")
    short = c.callbacks_from({"data": [{**CALLBACK, "phone": "12"}, {**CALLBACK, "phone": None}]})
    assert [x.phone_last4 for x in short] == ["", ""]


def test_it_shows_an_unknown_callback_status_as_unknown_and_drops_rows_without_a_due_time():
    rows = c.callbacks_from(
        {"data": [{**CALLBACK, "status": "lost"}, {**CALLBACK, "due_at": None}, "nonsense"]}
    )
    assert [x.status for x in rows] == ["unknown"]
    with pytest.raises(ContractError):
        c.callbacks_from([CALLBACK])  # a bare list where an envelope is promised


def test_it_reads_pending_bookings_and_the_ai_dialer():
    [b] = c.pending_bookings_from({"data": [BOOKING], "count": 1})
    assert (b.id, b.call_id, b.contact_name, b.reason) == (
        "pb1",
        "call1",
        "Alex Byrne",
        "No free slot",
    )
    [a] = c.ai_dialer_from({"campaigns": [AI, {**AI, "concurrent_calls": -1}]})
    assert (a.campaign_id, a.active, a.concurrent_calls, a.max_concurrent) == ("k4", True, 4, 6)
    with pytest.raises(ContractError):
        c.ai_dialer_from({"data": [AI]})


def test_it_refuses_negative_or_non_numeric_counts_row_by_row():
    rows = c.dialer_queue_from([QUEUE, {**QUEUE, "pending": -3}, {**QUEUE, "exhausted": "7"}])
    assert len(rows) == 1


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
keys = st.sampled_from([*QUEUE, *CALLBACK, *BOOKING, *AI, "data", "campaigns", "count"])


@settings(max_examples=300, deadline=None)
@given(data=st.one_of(json_values, st.dictionaries(keys, json_values, max_size=8)))
def test_random_payloads_raise_nothing_but_contract_errors(data):
    for reader in (
        c.dialer_queue_from,
        c.callbacks_from,
        c.pending_bookings_from,
        c.ai_dialer_from,
    ):
        with contextlib.suppress(ContractError):
            reader(data)
        with contextlib.suppress(ContractError):
            reader({"data": [data], "campaigns": [data]})
        with contextlib.suppress(ContractError):
            reader([data])
