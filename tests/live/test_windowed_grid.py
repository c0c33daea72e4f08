"""The live view's windowed grid in Chromium: with LIVE_WINDOW_FROM agents or more the page
holds only the tiles in view and a margin, each as the service has it; the count and the
search go over every agent, and a tile scrolled into view shows its agent as it is now."""

from dashboard.testing.browsers import screenshot, sign_in, wait_for_js
from dashboard.testing.servers import start_dashboard
from dashboard.upstream.contract import agent_status_value

AGENTS = 150
ALL = f"{AGENTS} of {AGENTS} agents"
TILES = """() => [...document.querySelectorAll('#agents .agent')]
  .map((t) => [t.id.slice(6), t.dataset.name, t.dataset.state])"""


def in_page_as_the_service_has_them(page, sim):
    """The tiles in the page ([id, name, state]), after asserting that each one's state is
    its agent's; and every agent's name, in the page's order (by name)."""
    agents = {a["agentId"]: a for a in sim.agents()}
    tiles = page.evaluate(TILES)
    assert [state for _, _, state in tiles] == [
        agent_status_value(agents[agent_id]["status"]) for agent_id, _, _ in tiles
    ]
    return tiles, sorted(a["name"].lower() for a in agents.values())


def test_a_windowed_grid_holds_the_tiles_in_view_each_as_the_service_has_it(
    sim_factory, tmp_path, page
):
    sim = sim_factory("--faults", "--agents", str(AGENTS), "--seed", "11")
    sim.control("pause")  # the floor holds still: the service's state is the one to show
    server = start_dashboard(
        sim, tmp_path, extra_env={"LIVE_WINDOW_FROM": "100"}, people={"sam": "supervisor"}
    )
    try:
        page.set_viewport_size({"width": 1000, "height": 700})
        sign_in(page, server, "sam")
        page.wait_for_selector("#conn[data-state=live]")
        wait_for_js(page, f"document.getElementById('agents-shown').textContent === '{ALL}'")
        tiles, names = in_page_as_the_service_has_them(page, sim)
        assert 0 < len(tiles) < AGENTS / 2  # the rows in view and a margin, not the floor
        assert [name.lower() for _, name, _ in tiles] == names[: len(tiles)]

        # The last agent in name order, far out of view, changes state; scrolled to, its
        # tile shows the change.
        last = max(sim.agents(), key=lambda a: (a["name"].lower(), a["agentId"]))
        status = "available" if last["status"] == "paused" else "paused"
        sim.control("agent-status", agent_id=last["agentId"], status=status)
        page.evaluate(
            "() => scrollBy(0, document.getElementById('agents').getBoundingClientRect().bottom"
            " - innerHeight)"
        )
        page.locator(f"#agent-{last['agentId']}[data-state={status}]").wait_for()
        tiles, names = in_page_as_the_service_has_them(page, sim)
        assert 0 < len(tiles) < AGENTS / 2
        assert [name.lower() for _, name, _ in tiles] == names[-len(tiles) :]
        screenshot(page, "live-windowed-1-scrolled-to-the-end")

        # The search goes over every agent, not only the tiles in the page.
        page.evaluate("() => window.scrollTo(0, 0)")
        wanted = sorted(sim.agents(), key=lambda a: a["name"].lower())[AGENTS // 2]
        page.fill("#f-q", wanted["name"])
        page.locator(f"#agent-{wanted['agentId']}").wait_for()
        tiles, _ = in_page_as_the_service_has_them(page, sim)
        assert all(wanted["name"].lower() in name.lower() for _, name, _ in tiles)
        assert page.inner_text("#agents-shown") == f"{len(tiles)} of {AGENTS} agents"
    finally:
        server.stop()
