"""The alert tray in Chromium (notifications permission granted): a supervisor opts in to
notifications, an agent forced into `paused` past the alarm limit appears in the tray,
pushed live, and as a browser notification; acknowledging it from the tray shows who and
when; it clears by itself when the agent is back. A wallboard flashes the agent's tile and
shows the alert's sentence in its banner."""

import pytest

from dashboard.testing.alerts import Rules
from dashboard.testing.browsers import screenshot, sign_in, wait_for_js
from dashboard.testing.links import create_link
from dashboard.testing.servers import start_dashboard
from dashboard.testing.simulator import start_simulator

RECORD_NOTIFICATIONS = """
(() => {
  const Real = window.Notification;
  if (!Real) return;
  window.__notifications = [];
  function Recorded(title, options) {
    window.__notifications.push({ title, body: (options || {}).body || "" });
    return new Real(title, options);
  }
  Object.defineProperty(Recorded, "permission", { get: () => Real.permission });
  Recorded.requestPermission = (...args) => Real.requestPermission(...args);
  window.Notification = Recorded;
})();
"""


@pytest.fixture(scope="module")
def floor(tmp_path_factory):
    sim = start_simulator("--faults", "--seed", "7")
    server = start_dashboard(sim, tmp_path_factory.mktemp("alerts-browser"))
    sim.control("pause")  # the floor stands still: only the agents the tests force move
    rules = Rules(server)
    rules.delete_all()
    rules.add("Paused (test)", "agent_paused", warn=1, alarm=2, hold_s=1, clear_s=1)
    yield sim, server, rules
    server.stop()
    sim.stop()


def an_available_agent(sim):
    return next(a for a in sim.agents() if a["status"] == "available")


def test_the_tray_shows_the_alarm_live_notifies_and_is_acknowledged(floor, browser):
    sim, server, rules = floor
    context = browser.new_context(viewport={"width": 1600, "height": 1000})
    context.grant_permissions(["notifications"], origin=server.url)
    context.add_init_script(RECORD_NOTIFICATIONS)
    page = context.new_page()
    refused = []
    page.on("console", lambda m: "Content Security Policy" in m.text and refused.append(m.text))
    try:
        sign_in(page, server, server.add_user("sam", "supervisor"))
        page.wait_for_selector("#conn[data-state=live]")
        page.click("#alerts-menu summary")
        page.click("#alert-notify")
        page.wait_for_selector("#alerts-menu[data-notify=granted]")
        assert "Alarm notifications on" in page.inner_text("#alert-notify-status")

        agent = an_available_agent(sim)
        sim.control("agent-status", agent_id=agent["agentId"], status="paused")
        entry = page.locator("#alert-tray .alert-entry[data-level=alarm]", has_text=agent["name"])
        entry.wait_for(timeout=15_000)
        assert entry.locator("a").get_attribute("href") == f"/agents/{agent['agentId']}/"
        count = page.locator("#alert-tray .alert-entry").count()  # agents paused before too
        assert page.inner_text("#alert-count") == str(count)
        mine = f"window.__notifications.filter(n => n.body.includes({agent['name']!r}))"
        wait_for_js(page, f"{mine}.length > 0", timeout=10_000)
        [note] = page.evaluate(mine)
        assert note["title"] == "Alarm" and note["body"].startswith("Alarm: ")
        screenshot(page, "alerts-1-tray-alarm")

        entry.locator(".alert-ack").click()
        acked = page.locator("#alert-tray .alert-entry[data-acked='1']", has_text=agent["name"])
        acked.wait_for(timeout=10_000)
        assert "Acknowledged by sam at" in acked.inner_text()
        screenshot(page, "alerts-2-acknowledged")

        sim.control("agent-status", agent_id=agent["agentId"], status="available")
        page.locator("#alert-tray .alert-entry", has_text=agent["name"]).wait_for(
            state="detached", timeout=15_000
        )
        assert page.inner_text("#alert-count") == str(count - 1)
        assert len(page.evaluate(mine)) == 1  # once per alert and level
        assert refused == []  # the tray runs under the strict CSP
    finally:
        context.close()


def test_a_browser_that_blocks_notifications_is_told_so(floor, browser):
    """Not granted: headless Chromium refuses the request, and the tray says so."""
    sim, server, rules = floor
    context = browser.new_context()
    page = context.new_page()
    try:
        sign_in(page, server, server.add_user("tess", "supervisor"))
        page.click("#alerts-menu summary")
        page.click("#alert-notify")
        page.wait_for_function(
            "() => document.getElementById('alert-notify-status').textContent.includes('blocks')"
        )
        assert "The browser blocks notifications" in page.inner_text("#alert-notify-status")
    finally:
        context.close()


def test_a_wallboard_flashes_the_tile_and_shows_the_banner(floor, browser):
    sim, server, rules = floor
    url = create_link(rules.client, "Floor TV", ["agents"])
    page = browser.new_page(viewport={"width": 1920, "height": 1080})
    try:
        page.goto(url)
        page.wait_for_selector("#agents .agent >> nth=10", state="attached")
        agent = an_available_agent(sim)
        sim.control("agent-status", agent_id=agent["agentId"], status="paused")
        page.wait_for_selector(f"#agent-{agent['agentId']}.alert-flash", timeout=15_000)
        # The banner says the most severe alert, the newest first: agents the floor paused
        # before it stood still (more after a slow start) are alarms already, so this one
        # is said once it is an alarm too; its tile flashes from the warning on.
        banner = page.locator("#wb-alert-banner", has_text=agent["name"])
        banner.wait_for(timeout=15_000)  # visible, with the agent's name
        screenshot(page, "alerts-3-wallboard-flash")
        sim.control("agent-status", agent_id=agent["agentId"], status="available")
        page.wait_for_selector(f"#agent-{agent['agentId']}:not(.alert-flash)", timeout=15_000)
    finally:
        page.close()
