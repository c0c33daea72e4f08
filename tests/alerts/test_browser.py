"""The alert tray in Chromium (notifications permission granted): a supervisor of one team
opts in to notifications; agents of their team forced into `paused` past the alarm limit are
one alert for the team, first in their tray above everyone's (a loaded queue), pushed live,
and one browser notification however many agents join it; another team's is not theirs.
Acknowledging it from the tray shows who and when; it clears by itself when the agents are
back. A wallboard flashes the agents' tiles and shows the alert's sentence in its banner."""

import pytest

from dashboard.testing.alerts import Rules, calm
from dashboard.testing.browsers import screenshot, session_cookies, sign_in, wait_for_js
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
def alert_tray_floor(tmp_path_factory):
    sim = start_simulator("--faults", "--seed", "7")
    server = start_dashboard(sim, tmp_path_factory.mktemp("alerts-browser"))
    calm(sim)  # the floor stands still: only the agents the tests force move
    rules = Rules(server)
    rules.delete_all()
    rules.add("Paused (test)", "agent_paused", warn=1, alarm=2, hold_s=1, clear_s=1)
    rules.add("Wait (test)", "longest_wait", scope="queue", scope_value="Billing", warn=1, alarm=2)
    yield sim, server, rules
    server.stop()
    sim.stop()


def free(sim, team=None, n=1, other_than=None):
    agents = [
        a
        for a in sim.agents()
        if a["status"] == "available" and a["team"] != other_than and team in (None, a["team"])
    ]
    return agents[:n]


def says(team, text):
    """JS: the tray's entry of `team` says `text`."""
    entry = f"#alert-tray .alert-entry[data-team='{team}'] .alert-text"
    return f"document.querySelector({entry!r})?.textContent.includes({text!r})"


def set_status(sim, agents, status):
    for agent in agents:
        sim.control("agent-status", agent_id=agent["agentId"], status=status)


def choose_teams(server, username, teams):
    client = server.signed_in_client(username)
    try:
        client.get("/accounts/preferences/")
        token = client.cookies["csrftoken"]
        r = client.post(
            "/accounts/preferences/teams/", data={"teams": teams, "csrfmiddlewaretoken": token}
        )
        assert r.status_code in (200, 302), r.text
    finally:
        client.close()


def test_the_tray_shows_my_teams_group_first_notifies_once_and_is_acknowledged(
    alert_tray_floor, browser
):
    sim, server, rules = alert_tray_floor
    mine = free(sim)[0]["team"]
    server.add_user("sam", "supervisor")
    choose_teams(server, "sam", [mine])
    context = browser.new_context(viewport={"width": 1600, "height": 1000})
    context.grant_permissions(["notifications"], origin=server.url)
    context.add_init_script(RECORD_NOTIFICATIONS)
    page = context.new_page()
    refused = []
    page.on("console", lambda m: "Content Security Policy" in m.text and refused.append(m.text))
    try:
        sign_in(page, server, "sam")
        page.wait_for_selector("#conn[data-state=live]")
        page.click("#alerts-menu summary")
        page.click("#alert-notify")
        page.wait_for_selector("#alerts-menu[data-notify=granted]")
        assert "Alarm notifications on" in page.inner_text("#alert-notify-status")

        theirs = free(sim, other_than=mine)[0]
        set_status(sim, [theirs], "paused")
        agents = free(sim, mine, 3)
        set_status(sim, agents, "paused")
        team = f"team {mine}"
        entry = page.locator("#alert-tray .alert-entry[data-level=alarm]", has_text=team)
        entry.wait_for(timeout=15_000)
        wait_for_js(page, says(mine, "3 of"))
        assert entry.locator("a").get_attribute("href").startswith("/alerts/")
        # An alarm about a queue, newer: first in the one tray, after my team's in mine.
        sim.control("queue-load", queue="Billing", waiting=2, longest_wait_s=2)
        queue = page.locator("#alert-tray .alert-entry[data-level=alarm]", has_text="Billing")
        queue.wait_for()
        shown = page.evaluate(
            "[...document.querySelectorAll('#alert-tray .alert-entry')]"
            ".filter((e) => !e.hidden).map((e) => e.dataset.team || e.textContent)"
        )
        assert shown[0] == mine and "Billing queue" in shown[1]  # my team's first
        assert theirs["team"] not in shown  # another team's is on the whole floor's page
        assert page.inner_text("#alert-count") == "2"
        note_of = f"window.__notifications.filter(n => n.body.includes({team!r}))"
        wait_for_js(page, f"{note_of}.length > 0", timeout=10_000)
        [note] = page.evaluate(note_of)
        assert note["title"] == "Alarm" and note["body"].startswith("Alarm: ")
        group_page = context.new_page()  # the alert's page: its agents, live
        group_page.goto(server.url + entry.locator("a").get_attribute("href"))
        group_page.wait_for_selector("#conn[data-state=live]")
        listed = "#alert-members li[data-agent]"
        assert sorted(
            group_page.eval_on_selector_all(listed, "ls => ls.map(l => l.dataset.agent)")
        ) == sorted(a["agentId"] for a in agents)
        one_more = free(sim, mine)
        set_status(sim, one_more, "paused")  # a member joins: the list, not a notification
        group_page.wait_for_selector(f"#alert-members li[data-agent='{one_more[0]['agentId']}']")
        group_page.close()
        wait_for_js(page, says(mine, "4 of"))
        screenshot(page, "alerts-1-tray-alarm")

        entry.locator(".alert-ack").click()
        acked = page.locator("#alert-tray .alert-entry[data-acked='1']", has_text=team)
        acked.wait_for(timeout=10_000)
        assert "Acknowledged by sam at" in acked.inner_text()
        screenshot(page, "alerts-2-acknowledged")

        set_status(sim, [*agents, *one_more], "available")
        page.locator("#alert-tray .alert-entry", has_text=team).wait_for(
            state="detached", timeout=15_000
        )
        assert page.inner_text("#alert-count") == "1"
        assert len(page.evaluate(note_of)) == 1  # once per alert and level, not per agent
        assert refused == []  # the tray runs under the strict CSP
    finally:
        context.close()
        sim.control("queue-load", queue="Billing", waiting=0)
        set_status(sim, [theirs], "available")


def test_a_browser_that_blocks_notifications_is_told_so(alert_tray_floor, browser):
    """Not granted: headless Chromium refuses the request, and the tray says so."""
    sim, server, rules = alert_tray_floor
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


def test_a_wallboard_flashes_the_tile_and_shows_the_banner(alert_tray_floor, browser):
    sim, server, rules = alert_tray_floor
    url = create_link(rules.client, "Floor TV", ["agents"])
    page = browser.new_page(viewport={"width": 1920, "height": 1080})
    try:
        page.goto(url)
        page.wait_for_selector("#agents .agent >> nth=10", state="attached")
        agent = free(sim)[0]
        sim.control("agent-status", agent_id=agent["agentId"], status="paused")
        page.wait_for_selector(f"#agent-{agent['agentId']}.alert-flash", timeout=15_000)
        # The banner says the most severe alert: the agent's team's, once it is an alarm.
        banner = page.locator("#wb-alert-banner", has_text=f"team {agent['team']}")
        banner.wait_for(timeout=15_000)  # visible, with the team's count
        screenshot(page, "alerts-3-wallboard-flash")
        sim.control("agent-status", agent_id=agent["agentId"], status="available")
        page.wait_for_selector(f"#agent-{agent['agentId']}:not(.alert-flash)", timeout=15_000)
    finally:
        page.close()


def test_the_rules_table_keeps_each_row_one_line_of_cells(alert_tray_floor, browser):
    """The Delete button's cell is a cell of its row: same top, same bottom, same border."""
    sim, server, rules = alert_tray_floor
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    context.add_cookies(session_cookies(server, server.add_user("rhea", "manager")))
    page = context.new_page()
    try:
        page.goto(f"{server.url}/alerts/rules/")
        edges = page.evaluate(
            """() => [...document.querySelectorAll("tbody tr")].map((row) =>
                [...row.cells].map((cell) => {
                    const box = cell.getBoundingClientRect();
                    return [Math.round(box.top), Math.round(box.bottom)];
                }))"""
        )
        assert edges and all(len(row) == 6 for row in edges)
        assert all(len({tuple(cell) for cell in row}) == 1 for row in edges), edges
    finally:
        context.close()
