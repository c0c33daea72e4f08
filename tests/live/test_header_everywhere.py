"""The header is the same on every signed-in page (Chromium): the service's status, AI
dialing and the page's freshness turn live on the pages that follow no pushes of their own
(the alerts, the rules, a call, the settings) as on the live view, and the header keeps the
live view's layout: the person's name on the same line, the header as tall."""

import pytest

from dashboard.testing.browsers import sign_in
from dashboard.testing.processes import wait_until
from dashboard.testing.servers import start_dashboard
from dashboard.testing.simulator import start_simulator

PERSON = "alexandra.montgomery"  # a long name: the one that wrapped


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    sim = start_simulator("--faults", "--seed", "7")
    server = start_dashboard(sim, tmp_path_factory.mktemp("header"), people={PERSON: "manager"})
    yield sim, server
    server.stop()
    sim.stop()


def a_completed_call(sim, server) -> str:
    """A call the service knows (the page reads it from the service): its page's path."""
    agent_id = sim.agents()[3]["agentId"]
    made = sim.control("webhook", event="call_completed", agent_id=agent_id)["data"]
    path = f"/calls/{made['call_id']}/"
    client = server.signed_in_client(PERSON)
    wait_until(lambda: client.get(path).status_code == 200, 30, "the call's page")
    return path


def header(page) -> dict:
    """Where the header's parts sit, once the page is live."""
    page.wait_for_selector("#conn[data-state=live]", timeout=15_000)
    page.wait_for_selector("#ai-status:not([data-enabled=unknown])", timeout=15_000)
    return {
        "header": page.locator("header.topbar").bounding_box()["height"],
        "name": page.locator(".who").bounding_box(),
        # The status's first part: its figure ("0% of today's calls") moves with the floor.
        "status": page.locator("#ai-status").inner_text().split(" · ")[0],
    }


def test_every_page_has_the_live_views_header(served, browser):
    sim, server = served
    call = a_completed_call(sim, server)
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    errors = []
    page.on("console", lambda m: m.type == "error" and errors.append(m.text))
    try:
        sign_in(page, server, PERSON)
        live = header(page)
        assert live["status"].startswith("AI dialing")
        for path in ("/alerts/", "/alerts/rules/", call, "/accounts/preferences/"):
            page.goto(server.url + path)
            assert header(page) == live, path
        assert errors == []
    finally:
        page.close()
