"""The live view in Chromium against a real dashboard process and simulated tenant."""

import re

import pytest

from dashboard.testing.alerts import calm
from dashboard.testing.browsers import screenshot, sign_in
from dashboard.testing.servers import dashboard_on, start_dashboard
from dashboard.testing.simulator import start_simulator

XSS = "<img src=x onerror=alert(1)>"


@pytest.fixture(scope="module")
def live_floor(tmp_path_factory):
    """One simulator and dashboard for the module, sam (a Supervisor) able to sign in: each
    test moves agents of its own (or frees them first with `calm`), so none needs a fresh
    floor, and a start of both processes is seconds of CPU."""
    sim = start_simulator("--faults", "--seed", "7")
    with dashboard_on(
        sim, tmp_path_factory.mktemp("live-browser"), people={"sam": "supervisor"}
    ) as server:
        yield sim, server


def test_it_shows_a_state_change_within_two_seconds(live_floor, page):
    sim, server = live_floor
    refused = []
    page.on("console", lambda m: "Content Security Policy" in m.text and refused.append(m.text))
    sign_in(page, server, "sam")
    page.wait_for_selector("#agents .agent >> nth=39")
    # the tiles come with the page; "live" once its socket has opened, which may be later
    page.wait_for_selector("#conn[data-state=live]")
    screenshot(page, "live-1-signed-in")

    agent = sim.agents()[5]
    sim.control("agent-status", agent_id=agent["agentId"], status="paused")
    tile = page.locator(f"#agent-{agent['agentId']}")
    tile.and_(page.locator("[data-state=paused]")).wait_for(timeout=2000)
    assert "Paused" in tile.inner_text()
    screenshot(page, "live-2-agent-paused")
    assert refused == []  # the page runs under its strict CSP


def test_it_filters_the_grid_and_keeps_the_filter_in_the_url(live_floor, page):
    sim, server = live_floor
    calm(sim)  # no agent paused but the three the test pauses
    paused = [a["agentId"] for a in sim.agents()[:3]]
    for agent_id in paused:
        sim.control("agent-status", agent_id=agent_id, status="paused")
    sign_in(page, server, "sam")
    page.wait_for_selector("#agents .agent >> nth=39")
    page.select_option("#f-state", "paused")
    assert re.search(r"\?state=paused$", page.url)
    visible = page.locator("#agents .agent:visible")
    assert sorted(visible.evaluate_all("els => els.map(e => e.id)")) == sorted(
        f"agent-{a}" for a in paused
    )
    page.reload()
    page.wait_for_selector("#agents .agent >> nth=39", state="attached")
    assert page.locator("#f-state").input_value() == "paused"
    assert page.locator("#agents .agent:visible").count() == 3
    page.fill("#f-q", sim.agents()[0]["name"][:4])
    assert 1 <= page.locator("#agents .agent:visible").count() <= 3
    screenshot(page, "live-3-filtered")


def test_it_says_upstream_disconnected_when_the_service_drops_and_recovers(live_floor, page):
    sim, server = live_floor
    sign_in(page, server, "sam")
    page.wait_for_selector("#conn[data-state=live]")
    sim.control("refuse-sockets", seconds=4)
    sim.control("drop-sockets")
    # the indicator follows on the page's one-second tick: late on a loaded machine
    page.wait_for_selector("#conn[data-state=upstream]", timeout=10_000)
    assert "Upstream disconnected" in page.inner_text("#conn")
    screenshot(page, "live-4-upstream-disconnected")
    page.wait_for_selector("#conn[data-state=live]", timeout=20000)
    assert "Live" in page.inner_text("#conn")
    screenshot(page, "live-4b-upstream-reconnected")


def test_it_shows_a_hostile_agent_name_as_text(live_floor, page):
    sim, server = live_floor
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    sign_in(page, server, "sam")
    page.wait_for_selector("#agents .agent >> nth=39")
    agent_id = sim.agents()[0]["agentId"]
    sim.control("agent-status", agent_id=agent_id, status="available", name=XSS)
    page.wait_for_function(
        "id => document.getElementById(id).querySelector('.name').textContent.includes('<img')",
        arg=f"agent-{agent_id}",
        timeout=3000,
    )
    assert page.locator(f"#agent-{agent_id} img").count() == 0
    assert dialogs == []


def test_a_supervisor_sees_300_agents_calmly(sim_factory, tmp_path, page):
    sim = sim_factory("--faults", "--agents", "300", "--seed", "9", "--speed", "3")
    server = start_dashboard(sim, tmp_path, people={"sam": "supervisor"})
    try:
        sign_in(page, server, "sam")
        page.wait_for_selector("#agents .agent >> nth=299")
        page.wait_for_timeout(1500)
        path = screenshot(page, "live-5-300-agents")
        assert path.stat().st_size > 10_000
        overflow = page.evaluate("document.documentElement.scrollWidth > window.innerWidth")
        assert overflow is False
    finally:
        server.stop()


def test_a_tile_past_its_limits_turns_amber_then_red_and_the_header_counts_it(live_floor, page):
    sim, server = live_floor
    server.manage(
        "shell",
        "-c",
        "from dashboard.live.models import Thresholds; "
        "Thresholds.objects.filter(pk=Thresholds.current().pk)"
        ".update(pause_warn_s=1, pause_alarm_s=3)",
    )
    sim.control("pause")
    agent_id = sim.agents()[3]["agentId"]
    sign_in(page, server, "sam")
    page.wait_for_selector("#agents .agent >> nth=39")
    sim.control("agent-status", agent_id=agent_id, status="paused")
    tile = f"#agent-{agent_id}"
    # levels are set on the page's one-second tick: generous, under load
    page.wait_for_selector(f"{tile}[data-level=warn]", timeout=10_000)
    page.wait_for_selector(f"{tile}[data-level=alarm]", timeout=10_000)
    assert int(page.get_attribute("#breaches", "data-count")) >= 1
    assert "over limit" in page.inner_text("#breaches")
    screenshot(page, "live-6-paused-too-long")
