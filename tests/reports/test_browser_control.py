"""Stopping and starting a campaign in Chromium, through the confirmation, against a real
dashboard process and simulated tenant: a Manager confirms by mouse and by keyboard, a
Supervisor beside them sees no button and watches the status change live; a booking the
AI left pending is marked as handled with a note typed in the same dialog."""

import pytest

from dashboard.testing.browsers import screenshot, sign_in, wait_for_js
from dashboard.testing.servers import start_dashboard


@pytest.fixture
def served(sim_factory, tmp_path):
    sim = sim_factory("--faults", "--seed", "7")
    server = start_dashboard(sim, tmp_path, {"UPSTREAM_REFRESH_INTERVAL_S": "1"})
    yield sim, server
    server.stop()


@pytest.fixture
def pages(browser):
    contexts = [browser.new_context(viewport={"width": 1400, "height": 1000}) for _ in range(2)]
    yield [context.new_page() for context in contexts]
    for context in contexts:
        context.close()


def test_a_manager_stops_and_starts_a_campaign_and_a_supervisor_sees_it_live(served, pages):
    sim, server = served
    manager, supervisor = pages
    token = sim.sign_in()["access_token"]
    target = next(x for x in sim.get("/campaigns", token).json() if x["status"] == "active")
    url = f"{server.url}/campaigns/{target['id']}/"
    for page, name, role in ((manager, "alice", "manager"), (supervisor, "bob", "supervisor")):
        sign_in(page, server, server.add_user(name, role))
        page.goto(url)
    status = "#campaign-body .status-campaign"
    supervisor.wait_for_selector(f'{status}[data-status="active"]')
    assert supervisor.locator("button[data-confirm]").count() == 0  # no button, no dialog
    assert supervisor.locator("#confirm").count() == 0

    # Opened and cancelled with Escape: nothing is asked, focus goes back to the button.
    manager.click("button.campaign-control")
    dialog = manager.locator("#confirm")
    dialog.wait_for(state="visible")
    assert manager.locator("#confirm-title").inner_text() == f"Stop “{target['name']}”?"
    assert manager.locator("#confirm-text").inner_text().startswith("It is active now.")
    screenshot(manager, "campaign-1-confirm-stop")
    manager.keyboard.press("Escape")
    dialog.wait_for(state="hidden")
    # The dialog's close event, which puts the focus back, is a task queued once it hides
    wait_for_js(manager, "document.activeElement.classList.contains('campaign-control')")
    assert "Nobody has started or stopped" in manager.locator("#campaign-actions").inner_text()

    # Confirmed with the mouse: the service's answer, and the supervisor's page follows.
    manager.click("button.campaign-control")
    manager.click("#confirm .confirm-submit")
    notice = manager.locator(".notice").inner_text()
    assert notice.startswith(f"Stopped “{target['name']}”. The service answered 200")
    manager.wait_for_selector(f'{status}[data-status="stopped"]')
    supervisor.wait_for_selector(f'{status}[data-status="stopped"]', timeout=10_000)
    supervisor.wait_for_selector("#campaign-actions tr.action[data-outcome=done]")
    screenshot(supervisor, "campaign-2-stopped-live")

    # Started with the keyboard alone: Enter on the button, Enter on the confirmation.
    manager.focus("button.campaign-control")
    manager.keyboard.press("Enter")
    dialog.wait_for(state="visible")
    assert "It is stopped now." in manager.locator("#confirm-text").inner_text()
    manager.keyboard.press("Enter")
    manager.wait_for_selector(
        ".notice >> text=The service answered 200: the campaign is active now"
    )
    supervisor.wait_for_selector(f'{status}[data-status="active"]', timeout=10_000)
    assert manager.locator("#campaign-actions tr.action").count() == 2
    screenshot(manager, "campaign-3-started")
    assert sim.get(f"/campaigns/{target['id']}", token).json()["status"] == "active"

    # A booking the AI left pending, marked as handled with a note typed in the dialog.
    ai = next(x for x in sim.get("/campaigns", token).json() if x["dialMode"] == "ai")
    manager.goto(f"{server.url}/campaigns/{ai['id']}/")
    manager.click("#pending-bookings button[data-confirm] >> nth=0")
    dialog.wait_for(state="visible")
    manager.fill("#confirm textarea", "Called back, booked for Tuesday")
    manager.click("#confirm .confirm-submit")
    manager.wait_for_selector(".notice >> text=The booking is marked as handled.")
    handled = manager.locator("#pending-bookings tr.handled").inner_text()
    assert "Handled by alice" in handled and "Called back, booked for Tuesday" in handled
