"""The simulated tenant's inbound side (contract 6.2): queues with their own targets, ring
groups and schedules, the day's figures per queue agreeing with its queue.stats events,
callers of a closed queue and of a full one leaving voicemail with a transcript that
follows, and a message handled once (the second gets 409 already_handled)."""

import asyncio

import httpx
import pytest
import socketio

from dashboard.testing.processes import await_until, wait_until


@pytest.fixture
def sim(sim_factory):
    return sim_factory("--faults", "--seed", "7", "--speed", "20", "--agents", "6")


def post(sim, token, path, body):
    return httpx.post(
        f"{sim.base_url}{path}", json=body, headers={"Authorization": f"Bearer {token}"}
    )


def truth(sim):
    return httpx.get(f"{sim.control_url}/inbound", timeout=10).json()


def test_three_queues_each_with_its_own_target_ring_group_and_schedule(sim):
    token = sim.sign_in()["access_token"]
    body = sim.get("/inbound/queues", token).json()
    assert body["count"] == 3
    plans = {
        q["name"]: (q["service_level_target_s"], q["service_level_goal_pct"]) for q in body["data"]
    }
    assert plans == {"Customer Service": (20, 80), "Billing": (10, 90), "Sales": (30, 70)}
    agents = {a["agentId"] for a in sim.get("/agent-status", token).json()}
    for queue in body["data"]:
        assert queue["ring_group"]["agent_ids"] and set(queue["ring_group"]["agent_ids"]) <= agents
    schedules = sim.get("/schedules", token).json()
    assert {s["name"] for s in schedules} == {"Main hours", "Sales hours"}
    sales = next(s for s in schedules if s["name"] == "Sales hours")
    assert sales["nextChangeAt"] and sales["timezone"] == "UTC"


def test_the_same_waits_meet_one_target_and_miss_another(sim):
    sim.control("inbound-reset")
    calls = [{"wait_s": w, "outcome": "answered"} for w in (5, 15, 25)]
    calls += [{"wait_s": 3, "outcome": "abandoned"}, {"wait_s": 40, "outcome": "abandoned"}]
    for name in ("Customer Service", "Billing"):
        sim.control("inbound-calls", queue=name, calls=calls)
    token = sim.sign_in()["access_token"]
    figures = {}
    for queue in sim.get("/inbound/queues", token).json()["data"]:
        figures[queue["name"]] = sim.get(f"/inbound/queues/{queue['id']}/stats", token).json()
    service, billing = figures["Customer Service"], figures["Billing"]
    assert (service["offered"], service["answered"], service["abandoned"]) == (5, 3, 2)
    assert service["abandoned_within_5s"] == 1 and service["average_wait_s"] == 15
    assert service["answered_within_target"] == 2  # 5 and 15 within 20 s
    assert billing["answered_within_target"] == 1  # only 5 within 10 s
    assert figures["Sales"]["offered"] == 0


def test_a_closed_queue_sends_its_callers_to_voicemail_transcribed_after(sim):
    sim.control("inbound-schedule", schedule="Sales hours", open=False)
    sales_id = next(q["id"] for q in truth(sim)["queues"] if q["name"] == "Sales")
    wait_until(
        lambda: any(m["queue_id"] == sales_id and m["transcript"] for m in truth(sim)["voicemail"]),
        timeout=60,
    )
    sales = next(q for q in truth(sim)["queues"] if q["name"] == "Sales")
    assert sales["open"] is False and sales["waiting"] == 0
    assert sales["today"]["to_voicemail"] >= 1


def test_a_message_is_heard_live_then_handled_once(sim):
    sim.control("inbound-reset")
    token = sim.sign_in()["access_token"]
    heard = []

    async def listen():
        client = socketio.AsyncClient(reconnection=False)
        for kind in ("voicemail.received", "voicemail.transcribed"):
            client.on(kind, lambda data, kind=kind: heard.append((kind, data)))
        await client.connect(sim.auth_url, auth={"token": token}, transports=["websocket"])
        await client.call("join", {"room": f"org:{sim.org_a}"}, timeout=5)
        left = await asyncio.to_thread(
            sim.control, "voicemail", queue="Billing", phone="+44 7700 900123", transcript="Hi"
        )
        await await_until(lambda: len(heard) == 2, 10, "both voicemail events", interval=0.05)
        await client.disconnect()
        return left

    left = asyncio.run(listen())
    assert [k for k, _ in heard] == ["voicemail.received", "voicemail.transcribed"]
    assert "transcript" not in heard[0][1] and heard[0][1]["id"] == left["id"]
    assert heard[1][1] == {"id": left["id"], "transcript": "Hi", **_stamps(heard[1][1])}
    listed = sim.get("/voicemail-messages", token, status="new").json()["data"]
    assert [m["id"] for m in listed] == [left["id"]] and listed[0]["transcript"] == "Hi"

    first = post(sim, token, f"/voicemail-messages/{left['id']}/handled", {"handled_by": "Bob"})
    assert first.status_code == 200 and first.json()["handled_by"] == "Bob"
    again = post(sim, token, f"/voicemail-messages/{left['id']}/handled", {"handled_by": "Al"})
    assert again.status_code == 409
    assert again.json() == {"error": "already_handled", "handled_by": "Bob"}
    assert sim.get("/voicemail-messages", token, status="new").json()["count"] == 0


def _stamps(data):
    return {k: data[k] for k in ("organization_id", "seq", "emitted_at")}


def test_the_groups_can_be_switched_off(sim):
    token = sim.sign_in()["access_token"]
    sim.control("missing-endpoint", path="voicemail-messages", status=405, seconds=30)
    assert sim.get("/voicemail-messages", token).status_code == 405
    assert sim.get("/schedules", token).status_code == 200
