"""The simulated tenant honours the contract over real sockets, failures included."""

import asyncio
import hashlib
import hmac
import json
import time

import httpx
import pytest
import socketio

from dashboard.testing.processes import await_until, let_pass, let_pass_async, wait_until
from dashboard.testing.receiver import Receiver


@pytest.fixture
def receiver():
    r = Receiver()
    yield r
    r.close()


def token_call(sim, grant, body, anon_key=None):
    return httpx.post(
        f"{sim.auth_url}/auth/v1/token",
        params={"grant_type": grant},
        json=body,
        headers={"apikey": anon_key or sim.anon_key},
        timeout=10,
    )


# ---- Auth provider ----------------------------------------------------------------------------
def test_it_issues_tokens_shaped_as_the_contract_says(module_simulator):
    body = module_simulator.sign_in()
    assert body["token_type"] == "bearer" and body["expires_in"] == 3600
    assert body["expires_at"] > time.time()
    assert body["user"]["app_metadata"] == {
        "organization_id": module_simulator.org_a,
        "role": "supervisor",
    }


def test_it_answers_every_auth_failure_of_the_contract(module_simulator):
    bad_key = token_call(
        module_simulator,
        "password",
        {"email": module_simulator.email_a, "password": module_simulator.password},
        "nope",
    )
    assert (bad_key.status_code, bad_key.json()) == (401, {"message": "Invalid API key"})
    wrong = token_call(
        module_simulator, "password", {"email": module_simulator.email_a, "password": "x"}
    )
    assert (wrong.status_code, wrong.json()["error"]) == (400, "invalid_grant")
    mfa = token_call(
        module_simulator,
        "password",
        {"email": module_simulator.email_mfa, "password": module_simulator.password},
    )
    assert (mfa.status_code, mfa.json()["error"]) == (403, "mfa_required")


def test_it_rotates_refresh_tokens_and_refuses_reuse(module_simulator):
    first = module_simulator.sign_in()["refresh_token"]
    renewed = token_call(module_simulator, "refresh_token", {"refresh_token": first})
    assert renewed.status_code == 200 and renewed.json()["refresh_token"] != first
    reused = token_call(module_simulator, "refresh_token", {"refresh_token": first})
    assert (reused.status_code, reused.json()["error"]) == (400, "invalid_grant")
    unknown = token_call(module_simulator, "refresh_token", {"refresh_token": "never-issued"})
    assert unknown.status_code == 400


def test_it_refuses_expired_tokens_on_rest(sim_factory):
    sim = sim_factory("--token-ttl", "1")
    token = sim.sign_in()["access_token"]
    assert sim.get("/ai", token).status_code == 200

    def refused():
        r = sim.get("/ai", token)
        return r.status_code == 401 and r.json()

    assert wait_until(refused, 10, "the token expired")["error"] == "unauthorized"


# ---- REST -------------------------------------------------------------------------------------
def test_it_answers_each_rest_row_in_its_own_convention(simulator):
    simulator.control("pause")  # campaign counters hold still: one row equals its list entry
    token = simulator.sign_in()["access_token"]
    agents = simulator.get("/agent-status", token).json()
    assert isinstance(agents, list) and {"agentId", "statusSince", "callId"} <= set(agents[0])
    calls = simulator.get("/calls", token, status="active").json()
    assert set(calls) == {"data", "count"} and calls["count"] == len(calls["data"])
    campaigns = simulator.get("/campaigns", token).json()
    assert isinstance(campaigns, list) and "dialMode" in campaigns[0]
    one = simulator.get(f"/campaigns/{campaigns[0]['id']}", token).json()
    assert one == campaigns[0]
    for path in ("/qa/scorecards", "/qa/templates", "/compliance/checks", "/coaching/alerts"):
        assert set(simulator.get(path, token).json()) == {"data", "count"}
    assert simulator.get("/ai", token).json()["enabled"] is True


def test_it_keeps_organisations_apart_over_rest(module_simulator):
    token_a = module_simulator.sign_in()["access_token"]
    token_b = module_simulator.sign_in(module_simulator.email_b)["access_token"]
    campaign_b = module_simulator.get("/campaigns", token_b).json()[0]["id"]
    assert module_simulator.get(f"/campaigns/{campaign_b}", token_a).status_code == 404
    ids_a = {a["agentId"] for a in module_simulator.get("/agent-status", token_a).json()}
    ids_b = {a["agentId"] for a in module_simulator.get("/agent-status", token_b).json()}
    assert ids_a and ids_b and not ids_a & ids_b


def test_it_keeps_admin_groups_from_the_agent_role(module_simulator):
    token = module_simulator.sign_in(module_simulator.email_agent)["access_token"]
    assert module_simulator.get("/tenant", token).status_code == 403
    r = httpx.post(
        f"{module_simulator.base_url}/webhooks/outbound",
        json={},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert r.status_code == 403


def test_it_validates_webhook_event_names(module_simulator):
    token = module_simulator.sign_in()["access_token"]
    r = httpx.post(
        f"{module_simulator.base_url}/webhooks/outbound",
        json={"name": "n", "url": "http://127.0.0.1:9/", "events": ["call_done"]},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert (r.status_code, r.json()["error"]) == (422, "invalid_event")


# ---- Webhooks ---------------------------------------------------------------------------------
def create_hook(sim, url, events=None):
    token = sim.sign_in()["access_token"]
    r = httpx.post(
        f"{sim.base_url}/webhooks/outbound",
        json={
            "name": "test",
            "url": url,
            "headers": {"X-Custom": "yes"},
            "events": events or ["coaching_alert", "qa_scored"],
        },
        headers={"Authorization": f"Bearer {token}"},
    )
    assert r.status_code == 201
    return r.json(), token


def test_it_signs_deliveries_over_the_raw_body(simulator, receiver):
    hook, _ = create_hook(simulator, receiver.url)
    simulator.control("webhook", event="coaching_alert")
    wait_until(lambda: receiver.received, 15, "a delivery")
    headers, body = receiver.received[0]
    expected = "sha256=" + hmac.new(hook["secret"].encode(), body, hashlib.sha256).hexdigest()
    assert headers["x-webhook-signature"] == expected
    assert headers["x-webhook-event"] == "coaching_alert" and headers["x-custom"] == "yes"
    payload = json.loads(body)
    assert payload["event"] == "coaching_alert" and payload["organization_id"] == simulator.org_a
    assert {"alert_id", "agent_id", "severity", "kind", "message"} <= set(payload["data"])


def test_it_retries_with_the_same_id_and_logs_every_attempt(simulator):
    receiver = Receiver(statuses=[500, 503])
    try:
        hook, token = create_hook(simulator, receiver.url)
        simulator.control("webhook", event="qa_scored")
        wait_until(lambda: len(receiver.received) == 3, 10, "3 attempts")  # after 1 s and 2 s
        ids = {json.loads(body)["id"] for _, body in receiver.received}
        assert len(ids) == 1
        log = simulator.get(f"/webhooks/outbound/{hook['id']}/deliveries", token).json()["data"]
        assert [(d["attempt"], d["status_code"]) for d in log] == [(1, 500), (2, 503), (3, 200)]
        replay = httpx.post(
            f"{simulator.base_url}/webhooks/outbound/{hook['id']}/deliveries/{log[0]['id']}/replay",
            headers={"Authorization": f"Bearer {token}"},
        )
        assert replay.status_code == 202
        wait_until(lambda: len(receiver.received) == 4, 15, "the replay")
        assert receiver.received[3][1] == receiver.received[0][1]  # the same body again
    finally:
        receiver.close()


def test_it_sends_a_sample_on_test(simulator, receiver):
    hook, token = create_hook(simulator, receiver.url)
    r = httpx.post(
        f"{simulator.base_url}/webhooks/outbound/{hook['id']}/test",
        headers={"Authorization": f"Bearer {token}"},
    )
    assert r.status_code == 202
    wait_until(lambda: receiver.received, 15, "a delivery")


def test_it_can_send_a_badly_signed_delivery(simulator, receiver):
    hook, _ = create_hook(simulator, receiver.url)
    simulator.control("bad-signature-webhook")
    wait_until(lambda: receiver.received, 15, "a delivery")
    headers, body = receiver.received[0]
    good = "sha256=" + hmac.new(hook["secret"].encode(), body, hashlib.sha256).hexdigest()
    assert headers["x-webhook-signature"] != good


# ---- Socket.IO --------------------------------------------------------------------------------
def refusals(client):
    """What the server said when it refused the client's connect packet."""
    said = []
    client.on("connect_error", lambda data: said.append(data))
    return said


async def listen(sim, email=None, room=None, seconds=1.5, token=None, joined=None, until=None):
    """(the join's answer, the events heard for `seconds` after it, or until `until(events)`
    holds, within `seconds`); `joined`, an asyncio.Event, is set once the room is joined:
    what is sent before reaches no one."""
    token = token or sim.sign_in(email)["access_token"]
    client = socketio.AsyncClient(reconnection=False)
    events = []
    kinds = ("agent.status", "call.started", "call.updated", "call.ended", "queue.stats")
    for kind in (*kinds, "voicemail.received", "voicemail.transcribed"):
        client.on(kind, lambda data, kind=kind: events.append((kind, data)))
    await client.connect(sim.auth_url, auth={"token": token}, transports=["websocket"])
    ack = await client.call("join", {"room": room or f"org:{sim.org_a}"}, timeout=5)
    if joined:
        joined.set()
    if until:
        await await_until(lambda: until(events), seconds, "the events awaited")
    else:
        await let_pass_async(seconds, "the listening window")
    await client.disconnect()
    return ack, events


async def test_it_streams_the_five_events_with_seq_and_time(sim_factory):
    sim = sim_factory("--speed", "30", "--seed", "11")
    ack, events = await listen(sim, seconds=4)
    assert ack == {"ok": True}
    kinds = {k for k, _ in events}
    assert {"agent.status", "call.started", "call.ended"} <= kinds
    seqs = [d["seq"] for _, d in events]
    assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))
    assert all(
        d["organization_id"] == sim.org_a and d["emitted_at"].endswith("Z") for _, d in events
    )


async def test_it_refuses_another_organisations_room(module_simulator):
    ack, events = await listen(module_simulator, room=f"org:{module_simulator.org_b}", seconds=0.5)
    assert ack == {"ok": False, "error": "forbidden"}
    assert events == []


async def test_it_refuses_a_bad_or_expired_token(sim_factory):
    sim = sim_factory("--token-ttl", "1")
    client = socketio.AsyncClient(reconnection=False)
    said = refusals(client)
    with pytest.raises(socketio.exceptions.ConnectionError):
        await client.connect(sim.auth_url, auth={"token": "forged"}, transports=["websocket"])
    token = sim.sign_in()["access_token"]
    await let_pass_async(1.2, "past the token's 1 s life")
    with pytest.raises(socketio.exceptions.ConnectionError):
        await client.connect(sim.auth_url, auth={"token": token}, transports=["websocket"])
    assert said == [{"message": "unauthorized"}] * 2


async def test_it_delivers_an_agents_events_to_its_agent_room(simulator):
    agent = simulator.agents()[0]["agentId"]
    joined = asyncio.Event()

    async def force():
        await joined.wait()  # not a fixed 0.5 s: a loaded machine may join later than that
        await asyncio.to_thread(simulator.control, "agent-status", agent_id=agent, status="paused")

    room = f"agent:{agent}"
    (ack, events), _ = await asyncio.gather(listen(simulator, room=room, joined=joined), force())
    assert ack == {"ok": True}
    assert events and all(d["agent_id"] == agent for _, d in events)


def events_by_seq(sim_factory, *seeds) -> list[dict]:
    """The events each simulator (one per seed) was heard to send over the same 5 s, by seq:
    each model runs from its start, and a listener joins a moment later (later on a loaded
    machine, and later for the simulators started first), so two runs hear from other seqs."""
    sims = [sim_factory("--speed", "10", "--seed", str(seed)) for seed in seeds]

    async def all_at_once():
        return await asyncio.gather(*(listen(sim, seconds=5) for sim in sims))

    heard = asyncio.run(all_at_once())
    strip = ("emitted_at", "since", "started_at", "ended_at", "received_at", "organization_id")
    return [
        {d["seq"]: (k, {f: v for f, v in d.items() if f not in strip}) for k, d in events}
        for _, events in heard
    ]


def first_in_both(one, two, n=25):
    """The first `n` events both runs heard, each run's."""
    seqs = sorted(one.keys() & two.keys())[:n]
    return [one[s] for s in seqs], [two[s] for s in seqs]


def test_it_is_deterministic_for_a_seed(sim_factory):
    five, again, six = events_by_seq(sim_factory, 5, 5, 6)
    one, two = first_in_both(five, again)
    assert len(one) == 25 and one == two
    one, other = first_in_both(five, six)
    assert len(one) == 25 and one != other


# ---- Fault controls ---------------------------------------------------------------------------
async def test_it_drops_sockets_and_refuses_new_ones_on_command(simulator):
    token = simulator.sign_in()["access_token"]
    client = socketio.AsyncClient(reconnection=False)
    await client.connect(simulator.auth_url, auth={"token": token}, transports=["websocket"])
    await asyncio.to_thread(simulator.control, "refuse-sockets", seconds=2)
    await asyncio.to_thread(simulator.control, "drop-sockets")
    # Dropped through and through: its engine too, or a new connect is refused by the client.
    await await_until(lambda: client.eio.state == "disconnected", 5, "the socket dropped")
    assert not client.connected
    said = refusals(client)
    with pytest.raises(socketio.exceptions.ConnectionError):
        await client.connect(simulator.auth_url, auth={"token": token}, transports=["websocket"])
    assert said == [{"message": "unavailable"}]
    await let_pass_async(2, "to the refusal's end")
    await client.connect(simulator.auth_url, auth={"token": token}, transports=["websocket"])
    await client.disconnect()


def test_it_injects_rest_errors_and_auth_outages_for_a_while(simulator):
    token = simulator.sign_in()["access_token"]
    simulator.control("rest-errors", status=429, seconds=1, retry_after=3)
    r = simulator.get("/ai", token)
    assert (r.status_code, r.headers["retry-after"]) == (429, "3")
    simulator.control("auth-down", seconds=1)
    assert token_call(simulator, "password", {}).status_code == 503
    wait_until(lambda: simulator.get("/ai", token).status_code == 200, 10, "REST answering")
    wait_until(lambda: token_call(simulator, "password", {}).status_code != 503, 10, "auth back")
    assert simulator.sign_in()["access_token"]


def test_it_delays_rest_answers_for_a_while(simulator):
    token = simulator.sign_in()["access_token"]
    simulator.control("rest-delay", seconds=1.5, for_s=2)
    started = time.monotonic()
    assert simulator.get("/ai", token).status_code == 200
    assert time.monotonic() - started >= 1.5
    let_pass(2, "the delay's window")
    started = time.monotonic()
    simulator.get("/ai", token)
    assert time.monotonic() - started < 1.5


def test_it_expires_and_revokes_tokens_on_command(simulator):
    body = simulator.sign_in()
    simulator.control("expire-access-tokens")
    assert simulator.get("/ai", body["access_token"]).status_code == 401
    simulator.control("revoke-refresh-tokens")
    r = token_call(simulator, "refresh_token", {"refresh_token": body["refresh_token"]})
    assert r.status_code == 400


async def test_it_injects_bad_events_on_command(simulator):
    before, joined = {}, asyncio.Event()

    async def poke():
        await joined.wait()  # not a fixed 0.3 s: a loaded machine may join later than that
        await asyncio.to_thread(simulator.control, "pause")
        before.update(await asyncio.to_thread(simulator.stats))
        for name in ("skip-seq", "malformed-event", "foreign-event"):
            await asyncio.to_thread(simulator.control, name)

    def foreign_heard(events):
        return any(d.get("organization_id") == simulator.org_b for _, d in events)

    heard = listen(simulator, seconds=30, joined=joined, until=foreign_heard)
    (_, events), _ = await asyncio.gather(heard, poke())
    [malformed] = [d for _, d in events if "agent_id" in d and not isinstance(d["agent_id"], str)]
    [foreign] = [d for _, d in events if d["organization_id"] == simulator.org_b]
    assert malformed["seq"] == before["seq"][simulator.org_a] + 2  # one number skipped
    assert foreign["agent_id"] not in {a["agentId"] for a in simulator.agents()}


def test_it_has_no_controls_without_faults(sim_factory):
    sim = sim_factory()
    assert httpx.post(f"{sim.control_url}/drop-sockets").status_code == 404


def test_load_mode_holds_its_rate(sim_factory):
    sim = sim_factory("--agents", "1000", "--events-per-second", "200", "--faults")

    async def count():
        return (await listen(sim, seconds=5))[1]

    events = asyncio.run(count())
    assert 850 <= len(events) <= 1100
    # The rate, not how late each event was: its lag is a timing figure, which a loaded
    # machine moves (CI saw 57 ms against 50); make bench reports it as sim_lag_ms.
    assert sim.stats()["emit_rate"] >= 190


def test_it_changes_the_load_rate_on_request_and_resumes_without_catching_up(sim_factory):
    sim = sim_factory("--agents", "50", "--events-per-second", "20", "--faults")
    sim.control("pause")
    let_pass(0.5, "the events already on their way arrive before the count")
    sim.control("rate", events_per_second=100)
    before = sim.stats()["seq"][sim.org_a]
    sim.control("resume")
    resumed = time.monotonic()
    let_pass(2, "two seconds at the new rate")
    sim.control("pause")
    ran = time.monotonic() - resumed  # 2 s, and a loaded machine's late answers
    emitted = sim.stats()["seq"][sim.org_a] - before
    assert 150 <= emitted <= 100 * ran + 30  # ~100/s while it ran, nothing owed for the pause
    for bad in ({}, {"events_per_second": 0}, {"events_per_second": "fast"}):
        assert httpx.post(f"{sim.control_url}/rate", json=bad).status_code == 400


def test_the_rate_control_is_for_load_mode_only(module_simulator):
    r = httpx.post(f"{module_simulator.control_url}/rate", json={"events_per_second": 10})
    assert r.status_code == 400
