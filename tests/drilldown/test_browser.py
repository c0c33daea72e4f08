"""The drill-down in Chromium against a real dashboard and simulated tenant: from a live
tile to the agent's page, from there to a call, and its recording played on a press (and
asked for only then); and the pages when the service is slow."""

import httpx
import pytest

from dashboard.testing.browsers import screenshot, sign_in
from dashboard.testing.processes import free_port, wait_until
from dashboard.testing.servers import WEBHOOK_SECRET, start_dashboard
from dashboard.testing.simulator import start_simulator


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    port = free_port()
    hook = ("--webhook-url", f"http://127.0.0.1:{port}/webhooks/service/")
    sim = start_simulator("--faults", "--seed", "7", *hook, "--webhook-secret", WEBHOOK_SECRET)
    server = None
    try:
        server = start_dashboard(
            sim, tmp_path_factory.mktemp("drill"), {"UPSTREAM_PAGE_TIMEOUT_S": "1"}, port=port
        )
        server.add_user("bob", "supervisor")
        yield sim, server
    finally:
        if server:
            server.stop()
        sim.stop()


@pytest.fixture
def page_errors(page):
    errors = []
    page.on("pageerror", lambda error: errors.append(error))
    page.on("console", lambda m: "Content Security Policy" in m.text and errors.append(m.text))
    return errors


def asked(sim) -> dict:
    return sim.stats()["recordings"]


def test_from_a_live_tile_to_the_agent_to_a_call_and_its_recording(served, page, page_errors):
    sim, server = served
    agent = sim.agents()[4]
    made = sim.control("webhook", event="call_completed", agent_id=agent["agentId"])["data"]
    call_url = f"/calls/{made['call_id']}/"
    client = server.signed_in_client("bob")
    wait_until(lambda: "Agent: Hello" in client.get(call_url).text, 30, "the transcript stored")
    before = asked(sim)

    sign_in(page, server, "bob")
    page.click(f"#agent-{agent['agentId']} a.name")
    page.wait_for_url(f"{server.url}/agents/{agent['agentId']}/")
    page.wait_for_selector(f"#agent-calls a[href='{call_url}']")
    page.wait_for_selector("#conn[data-state=live]")
    sim.control("agent-status", agent_id=agent["agentId"], status="paused")  # pushed live
    page.wait_for_selector(f".drill-now #agent-{agent['agentId']}[data-state=paused]")
    page.wait_for_function(
        "() => /^\\d+:\\d\\d$/.test(document.querySelector('.timer').textContent)"
    )
    screenshot(page, "drill-1-agent")

    page.click(f"#agent-calls a[href='{call_url}']")
    page.wait_for_url(f"{server.url}{call_url}")
    assert "•••" in page.locator(".transcript").inner_text()  # its phone number, cut
    assert page.locator("#recording").get_attribute("src") is None
    screenshot(page, "drill-2-call")
    assert asked(sim) == before  # nothing asked for the recording before the press

    page.click("#play-recording")
    page.wait_for_function("() => document.getElementById('recording').src.includes('sig=')")
    wait_until(lambda: asked(sim)["served"] > before["served"], 10, "the audio fetched")
    assert asked(sim)["asked"] == before["asked"] + 1
    assert "works until" in page.locator("#recording-status").inner_text()
    screenshot(page, "drill-3-recording")
    assert page_errors == []
    log = server.log()  # the address is nowhere in the dashboard's log
    assert "/media/recordings" not in log and "sig=" not in log


def test_pages_say_what_a_slow_service_kept_from_them(served, page):
    sim, server = served
    agent = sim.agents()[6]
    made = sim.control("webhook", event="call_completed", agent_id=agent["agentId"])["data"]
    call_url = f"/calls/{made['call_id']}/"
    client = server.signed_in_client("bob")
    wait_until(lambda: "Agent: Hello" in client.get(call_url).text, 30, "the transcript stored")
    sim.control("rest-delay", seconds=3, for_s=20)
    try:
        slow = client.get(call_url)
        assert slow.status_code == 200 and "Could not fetch" in slow.text
        assert "Agent: Hello" in slow.text  # what the dashboard holds
        agent_page = client.get(f"/agents/{agent['agentId']}/")
        assert "Could not fetch — Today&#x27;s calls from the service" in agent_page.text
        assert f'href="{call_url}"' in agent_page.text  # the webhook's call still listed
        sign_in(page, server, "bob")
        page.goto(f"{server.url}{call_url}")
        page.click("#play-recording")
        page.wait_for_selector("#recording-status:has-text('no answer within 1 s')")
        assert page.locator("#recording").is_hidden()
        screenshot(page, "drill-4-slow-service")
    finally:
        sim.control("rest-delay", seconds=0, for_s=0)
    assert httpx.get(f"{server.url}/healthz").status_code == 200
