"""axe-core's WCAG 2.1 A and AA rules over the inbound pages and a kiosk wallboard with the
inbound tiles, in the light and the dark colour scheme (switched on the loaded page), with
something on them: queues meeting and missing their goals, a closed queue that received
calls, and a voicemail message with its transcript."""

import pytest

from dashboard.testing.axe import assert_no_violations
from dashboard.testing.browsers import session_cookies
from dashboard.testing.inbound import inbound_dashboard, truth
from dashboard.testing.links import create_link
from dashboard.testing.simulator import start_simulator


@pytest.fixture(scope="module")
def busy(tmp_path_factory):
    """One tenant and dashboard for the module: neither test changes what the other checks."""
    sim = start_simulator("--faults", "--seed", "7")
    server = None
    try:
        server = inbound_dashboard(sim, tmp_path_factory.mktemp("inbound-a11y"))
        for queue, wait_s in (("Billing", 30), ("Customer Service", 3)):
            calls = [{"wait_s": wait_s, "outcome": "answered"}]
            sim.control("inbound-calls", queue=queue, calls=calls)
        sim.control("inbound-schedule", schedule="Sales hours", open=False)
        sim.control("queue-load", queue="Sales", waiting=2, longest_wait_s=30)
        sim.control("voicemail", queue="Billing", transcript="Please call me back.")
        yield sim, server
    finally:
        if server:
            server.stop()
        sim.stop()


def test_the_inbound_pages_have_no_wcag_violation(busy, browser):
    sim, server = busy
    sales = next(q["id"] for q in truth(sim)["queues"] if q["name"] == "Sales")
    context = browser.new_context(viewport={"width": 1300, "height": 900})
    context.add_cookies(session_cookies(server, "bob"))
    try:
        page = context.new_page()
        for name, path, ready in (
            ("queues", "/queues/", "#queues-table .sl[data-meets=no]"),
            ("queue", f"/queues/{sales}/", "#queue-body .badge-closed-calls"),
            ("voicemail", "/voicemail/", "#voicemail-table td.transcript bdi"),
        ):
            page.goto(server.url + path)
            page.wait_for_selector(ready)
            assert_no_violations(page, f"inbound-{name}")
    finally:
        context.close()


SHOW_PANEL = """(key) => {
  for (const p of document.querySelectorAll('.wb-panel')) p.hidden = p.dataset.panel !== key;
}"""


def test_the_kiosk_wallboard_with_the_inbound_tiles_has_no_wcag_violation(busy, browser):
    """The kiosk's voicemail tile and the queues' hours ("Closed · opens 08:00", calls while
    closed, each queue's own goal), each panel shown in turn as the board rotates them."""
    sim, server = busy
    address = create_link(server.signed_in_client("alice"), "Inbound TV", ["kpis", "queues"])
    context = browser.new_context(viewport={"width": 1920, "height": 1080})
    try:
        page = context.new_page()
        page.goto(address)
        page.wait_for_selector("#kpi-voicemail >> text=oldest", state="attached")
        page.wait_for_selector("#queues-list .hours[data-open=no]", state="attached")
        page.wait_for_selector("#queues-list .sl[data-meets=no]", state="attached")
        for panel in ("kpis", "queues"):
            page.evaluate(SHOW_PANEL, panel)
            page.wait_for_selector(f".wb-panel[data-panel={panel}]", state="visible")
            assert_no_violations(page, f"inbound-wallboard-{panel}")
    finally:
        context.close()
