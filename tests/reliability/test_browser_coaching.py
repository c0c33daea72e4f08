"""A manager works a coaching alert in Chromium: it arrives on the open page by itself (a
signed webhook from the simulated tenant), is acknowledged, then resolved with a note.

The live view's browser steps are in tests/live/test_browser.py (sign in, a state
change seen live, filtering the grid, the disconnected indicator appearing and clearing)."""

import re

import pytest

from dashboard.testing.browsers import screenshot, sign_in, wait_for_js
from dashboard.testing.processes import free_port
from dashboard.testing.servers import start_dashboard

SECRET = "e2e-webhook-secret"


@pytest.fixture
def hooked_dashboard(sim_factory, tmp_path):
    port = free_port()
    sim = sim_factory(
        "--faults",
        "--webhook-url",
        f"http://127.0.0.1:{port}/webhooks/service/",
        "--webhook-secret",
        SECRET,
    )
    sim.control("pause")  # no alerts but the one this test makes
    server = start_dashboard(sim, tmp_path, port=port)
    yield sim, server
    server.stop()


def test_a_manager_acknowledges_and_resolves_an_alert_that_arrived_live(hooked_dashboard, page):
    sim, server = hooked_dashboard
    sign_in(page, server, server.add_user("mia", "manager"))
    page.goto(f"{server.url}/coaching/")
    page.wait_for_selector("#conn[data-state=live]")
    assert page.locator("#alerts-body .alert-row").count() == 0

    sim.control("webhook", event="coaching_alert")
    row = page.locator("#alerts-body .alert-row").first
    row.wait_for(timeout=10000)  # pushed to the open page, no reload
    assert page.locator("#alerts-body .empty-row").is_hidden()
    assert "Open" in row.locator(".status").inner_text()
    wait_for_js(page, "!document.getElementById('alert-counts').textContent.includes('none')")
    assert re.fullmatch(r"1 (critical|warning|info) open", page.inner_text("#alert-counts"))
    screenshot(page, "coaching-1-alert-arrived")

    row.get_by_role("button", name="Acknowledge").click()
    page.wait_for_load_state()
    row = page.locator("#alerts-body .alert-row").first
    assert "Acknowledged" in row.locator(".status").inner_text()
    assert "acknowledge by mia" in row.inner_text()
    screenshot(page, "coaching-2-acknowledged")

    row.get_by_label("Resolution note").fill("Listened back; coached on hold times")
    row.get_by_role("button", name="Resolve").click()
    page.wait_for_load_state()
    row = page.locator("#alerts-body .alert-row").first
    assert "Resolved" in row.locator(".status").inner_text()
    assert "resolve by mia" in row.inner_text() and "coached on hold times" in row.inner_text()
    assert row.get_by_role("button", name="Reopen").count() == 1
    assert page.inner_text("#alert-counts") == "none open"
    screenshot(page, "coaching-3-resolved")
