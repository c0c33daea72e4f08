"""Every shape of the contract parses into the same typed rows; nothing else gets through."""

import contextlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dashboard.upstream import contract as c
from dashboard.upstream.errors import ContractError, auth_error_parts

AGENT_REST = {
    "agentId": "a1",
    "name": "Ava",
    "team": "Sales",
    "status": "on_call",
    "statusSince": "2026-11-23T09:00:00Z",
    "callId": "k1",
    "extra": "ignored",
}
CALL = {
    "id": "k1",
    "agent_id": "a1",
    "campaign_id": "c1",
    "direction": "inbound",
    "state": "in_progress",
    "ai_handled": False,
    "started_at": "2026-11-23T09:00:00+00:00",
}


def test_it_reads_the_bare_camelcase_agent_list():
    [agent] = c.agents_from([AGENT_REST])
    assert (agent.agent_id, agent.status, agent.call_id) == ("a1", "on_call", "k1")
    assert agent.since.isoformat() == "2026-11-23T09:00:00+00:00"


def test_it_reads_the_calls_envelope():
    [call] = c.calls_from({"data": [CALL], "count": 1})
    assert call.call_id == "k1" and call.direction == "inbound"


def test_it_refuses_an_envelope_where_a_list_is_promised_and_the_reverse():
    with pytest.raises(ContractError):
        c.agents_from({"data": [AGENT_REST]})
    with pytest.raises(ContractError):
        c.calls_from([CALL])


def test_it_leaves_out_one_bad_row_and_keeps_the_rest():
    rows = c.agents_from([AGENT_REST, {"agentId": 5}, "nonsense"])
    assert [a.agent_id for a in rows] == ["a1"]


def test_it_shows_an_unknown_status_as_unknown():
    [agent] = c.agents_from([{**AGENT_REST, "status": "coffee"}])
    assert agent.status == "unknown"


def test_it_defaults_missing_optional_fields():
    [agent] = c.agents_from([{"agentId": "a1"}])
    assert (agent.name, agent.team, agent.since, agent.call_id) == ("Unnamed agent", "", None, None)


def test_it_reads_campaigns_in_camelcase():
    [camp] = c.campaigns_from(
        [
            {
                "id": "c1",
                "name": "Spring",
                "status": "active",
                "dialMode": "predictive",
                "totalContacts": 100,
                "dialedContacts": 40,
                "connectedCalls": 12,
                "appointmentsBooked": 3,
                "startedAt": "2026-11-23T08:00:00Z",
            }
        ]
    )
    assert (camp.dial_mode, camp.dialed_contacts, camp.appointments_booked) == ("predictive", 40, 3)


def test_it_parses_each_realtime_event():
    common = {"organization_id": "o", "seq": 4, "emitted_at": "2026-11-23T09:00:00.123Z"}
    samples = {
        "agent.status": {
            "agent_id": "a1",
            "name": "A",
            "team": "T",
            "status": "paused",
            "since": "2026-11-23T09:00:00Z",
            "call_id": None,
        },
        "call.started": {
            "call_id": "k1",
            "agent_id": None,
            "campaign_id": "c",
            "direction": "outbound",
            "ai_handled": True,
            "started_at": "2026-11-23T09:00:00Z",
        },
        "call.updated": {"call_id": "k1", "state": "on_hold", "agent_id": "a1"},
        "call.ended": {
            "call_id": "k1",
            "ended_at": "2026-11-23T09:01:00Z",
            "outcome": "sale",
            "duration_s": 60,
        },
        "queue.stats": {
            "queue_id": "q",
            "name": "Billing",
            "waiting": 2,
            "longest_wait_s": 31,
            "agents_available": 4,
        },
    }
    for kind, body in samples.items():
        event = c.parse_event(kind, {**body, **common})
        assert (event.kind, event.seq, event.organization_id) == (kind, 4, "o")
    assert c.parse_event("call.started", {**samples["call.started"], **common}).body.call.ai_handled


def test_queue_stats_carry_the_queues_day_counts_and_default_them_when_unusable(caplog):
    common = {"organization_id": "o", "seq": 4, "emitted_at": "2026-11-23T09:00:00Z"}
    body = {"queue_id": "q", "name": "Billing", "waiting": 2, "longest_wait_s": 31}
    full = c.parse_event("queue.stats", {**body, **common, "offered": 9, "answered": 7})
    assert (full.body.offered, full.body.answered, full.body.abandoned) == (9, 7, None)
    for _ in range(2):
        bad = c.parse_event("queue.stats", {**body, **common, "offered": "9", "abandoned": -1})
        assert (bad.body.offered, bad.body.abandoned, bad.body.waiting) == (None, None, 2)
    told = [r.getMessage() for r in caplog.records if "queue.stats" in r.getMessage()]
    assert len(told) == 2 and any("offered" in m for m in told), told  # once per field


@pytest.mark.parametrize(
    "bad",
    [
        None,
        [],
        "x",
        {"organization_id": "o", "seq": "1", "emitted_at": "2026-11-23T09:00:00Z"},
        {"organization_id": "o", "seq": 1, "emitted_at": "yesterday", "agent_id": "a"},
        {"organization_id": "o", "seq": 1, "emitted_at": "2026-11-23T09:00:00", "agent_id": "a"},
        {
            "organization_id": "o",
            "seq": True,
            "emitted_at": "2026-11-23T09:00:00Z",
            "agent_id": "a",
        },
        {"organization_id": "o", "seq": 1, "emitted_at": "2026-11-23T09:00:00Z", "agent_id": 7},
    ],
)
def test_it_refuses_malformed_events(bad):
    with pytest.raises(ContractError):
        c.parse_event("agent.status", bad)


def test_it_reads_all_three_auth_error_shapes():
    assert auth_error_parts({"code": 400, "error_code": "x", "msg": "m"}) == ("x", "m")
    assert auth_error_parts({"code": "y", "message": "m"}) == ("y", "m")
    assert auth_error_parts({"error": "invalid_grant", "error_description": "d"}) == (
        "invalid_grant",
        "d",
    )


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=6)
    ),
    max_leaves=20,
)
keys = st.sampled_from(
    [
        "organization_id",
        "seq",
        "emitted_at",
        "agent_id",
        "call_id",
        "status",
        "since",
        "waiting",
        "queue_id",
        "duration_s",
        "ai_handled",
        "name",
    ]
)


@settings(max_examples=300, deadline=None)
@given(
    kind=st.sampled_from(c.REALTIME_EVENTS + ("bogus",)),
    data=st.one_of(json_values, st.dictionaries(keys, json_values, max_size=10)),
)
def test_random_payloads_raise_nothing_but_contract_errors(kind, data):
    with contextlib.suppress(ContractError):
        c.parse_event(kind, data)
    for reader in (c.agents_from, c.calls_from, c.campaigns_from, c.scorecards_from, c.alerts_from):
        with contextlib.suppress(ContractError):
            reader(data)


# ---- Call evidence (contract 5) -------------------------------------------------------------
ENDED = {
    **CALL,
    "ended_at": "2026-11-23T09:05:00Z",
    "outcome": "sale",
    "duration_s": 300,
    "recording_id": "r1",
}
RECORDING = {
    "id": "r1",
    "call_id": "k1",
    "duration_s": 300,
    "url": "https://media.example.com/r1.wav?sig=abc",
    "expires_at": "2026-11-23T10:00:00Z",
}


def test_a_call_without_the_ended_fields_still_parses_with_them_empty():
    call = c.parse_call(CALL)
    assert (call.ended_at, call.outcome, call.duration_s, call.recording_id) == (None,) * 4
    ended = c.parse_call(ENDED)
    assert (ended.outcome, ended.duration_s, ended.recording_id) == ("sale", 300, "r1")
    assert ended.ended_at.isoformat() == "2026-11-23T09:05:00+00:00"
    for bad in ({"duration_s": -1}, {"duration_s": "300"}, {"ended_at": "soon"}):
        with pytest.raises(ContractError):
            c.parse_call({**ENDED, **bad})


def test_a_recording_needs_an_id_and_a_web_address_and_never_prints_it():
    [recording] = c.recordings_from({"data": [RECORDING]})
    assert recording.url == RECORDING["url"] and "sig=abc" not in repr(recording)
    rows = [RECORDING, {**RECORDING, "url": "javascript:alert(1)"}, {**RECORDING, "id": None}]
    assert len(c.recordings_from({"data": rows})) == 1
    with pytest.raises(ContractError):
        c.recordings_from([RECORDING])  # an envelope is promised
