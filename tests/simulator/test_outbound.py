"""The simulated tenant's outbound side behaves as a dialer would: leads drain as contacts
are dialed and stop draining when the campaign stops, callbacks come due and some are
missed, the AI leaves some bookings pending and keeps to its concurrency; a group switched
off answers as a service without it."""

import httpx
import pytest

from dashboard.testing.processes import wait_until
from dashboard.testing.simulator import start_simulator


@pytest.fixture(scope="module")
def fast_sim():
    """40 simulated seconds a second (steps of 4 s: a campaign dials at most once a step),
    with a small floor: the outbound side is the point."""
    sim = start_simulator("--faults", "--seed", "7", "--speed", "40", "--agents", "8")
    yield sim
    sim.stop()


@pytest.fixture(scope="module")
def token(fast_sim):
    return fast_sim.sign_in()["access_token"]


def frozen(sim, token):
    """Campaigns and their queues read together while the model stands still."""
    sim.control("pause")
    try:
        campaigns = {x["id"]: x for x in sim.get("/campaigns", token).json()}
        queues = {q["campaignId"]: q for q in sim.get("/dialer-queue/summary", token).json()}
    finally:
        sim.control("resume")
    return campaigns, queues


def post(sim, token, path):
    return httpx.post(f"{sim.base_url}{path}", headers={"Authorization": f"Bearer {token}"})


def test_leads_drain_as_contacts_are_dialed_and_stop_when_the_campaign_stops(fast_sim, token):
    campaigns, queues = frozen(fast_sim, token)
    for x in campaigns.values():  # never-dialed leads are the contacts not dialed yet
        q = queues[x["id"]]
        assert q["pending"] >= x["totalContacts"] - x["dialedContacts"] > 0
        assert q["retryScheduled"] > 0 and q["exhausted"] > 0
    active = next(
        x for x in campaigns.values() if x["status"] == "active" and x["dialMode"] != "ai"
    )
    wait_until(
        lambda: (
            frozen(fast_sim, token)[0][active["id"]]["dialedContacts"] > active["dialedContacts"]
        ),
        20,
        "the campaign dialing contacts",
    )
    assert post(fast_sim, token, f"/campaigns/{active['id']}/stop").json()["status"] == "stopped"
    before, queued = frozen(fast_sim, token)
    wait_until(lambda: frozen(fast_sim, token)[0] != before, 10, "other campaigns moving meanwhile")
    after, _ = frozen(fast_sim, token)
    assert after[active["id"]]["dialedContacts"] == before[active["id"]]["dialedContacts"]
    assert post(fast_sim, token, f"/campaigns/{active['id']}/start").status_code == 200


@pytest.fixture(scope="module")
def faster_sim():
    """200 simulated seconds a second, for what takes minutes of the floor's time: the
    soonest callback is due some ten minutes on (and a due one missed after 15, 4.5 s
    here), the AI leaves a booking pending after some minutes of dialing."""
    sim = start_simulator("--faults", "--seed", "7", "--speed", "200", "--agents", "8")
    yield sim, sim.sign_in()["access_token"]
    sim.stop()


def test_callbacks_come_due_and_some_are_missed(faster_sim):
    sim, token = faster_sim

    def callbacks():
        rows = sim.get("/callbacks", token, due_before="2999-01-01T00:00:00Z").json()["data"]
        return {x["id"]: x for x in rows}

    first = callbacks()
    assert {"missed", "done", "scheduled"} <= {x["status"] for x in first.values()}
    assert all(x["phone"].startswith("+44") for x in first.values())
    soonest = min(
        (x for x in first.values() if x["status"] == "scheduled"), key=lambda x: x["due_at"]
    )
    wait_until(
        lambda: callbacks()[soonest["id"]]["status"] != "scheduled", 60, "a callback coming due"
    )
    assert callbacks()[soonest["id"]]["status"] in ("due", "done")
    r = sim.get("/callbacks", token, due_before="tomorrow")
    assert (r.status_code, r.json()["error"]) == (400, "invalid_request")


def test_the_ai_keeps_to_its_concurrency_and_leaves_some_bookings_pending(faster_sim):
    sim, token = faster_sim
    before = sim.get("/pending-bookings", token).json()["count"]
    seen = []

    def more_bookings():
        [row] = sim.get("/ai-dialer", token).json()["campaigns"]
        seen.append(row)
        return sim.get("/pending-bookings", token).json()["count"] > before

    wait_until(more_bookings, 60, "the AI leaving a booking pending")
    assert all(0 <= x["concurrent_calls"] <= x["max_concurrent"] for x in seen)
    assert any(x["concurrent_calls"] for x in seen) and all(x["active"] for x in seen)


def test_a_group_switched_off_answers_for_its_whole_path(sim_factory):
    sim = sim_factory("--without", "callbacks", "--without", "campaign-control:405")
    token = sim.sign_in()["access_token"]
    assert sim.get("/callbacks", token, due_before="2999-01-01T00:00:00Z").status_code == 404
    campaign = sim.get("/campaigns", token).json()[0]
    assert post(sim, token, f"/campaigns/{campaign['id']}/stop").status_code == 405
    assert sim.get("/dialer-queue/summary", token).status_code == 200
    assert sim.get(f"/campaigns/{campaign['id']}", token).json()["status"] == campaign["status"]
