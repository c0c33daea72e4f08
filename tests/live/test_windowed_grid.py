"""The live view's windowed grid in Chromium: with LIVE_WINDOW_FROM agents or more the page
holds only the tiles in view and a margin, each as the service has it; the count and the
search go over every agent, and a tile scrolled into view shows its agent as it is now."""

from contextlib import contextmanager

from dashboard.testing.browsers import screenshot, sign_in, wait_for_js
from dashboard.testing.processes import wait_until
from dashboard.testing.servers import start_dashboard
from dashboard.upstream.contract import agent_status_value

AGENTS = 150
ALL = f"{AGENTS} of {AGENTS} agents"
TILES = """() => [...document.querySelectorAll('#agents .agent')]
  .map((t) => [t.id.slice(6), t.dataset.name, t.dataset.state])"""


@contextmanager
def windowed_live_view(sim, tmp_path, page):
    """A dashboard windowing from 100 agents, and Sam's live view of it with every agent
    counted."""
    server = start_dashboard(
        sim, tmp_path, extra_env={"LIVE_WINDOW_FROM": "100"}, people={"sam": "supervisor"}
    )
    try:
        page.set_viewport_size({"width": 1000, "height": 700})
        sign_in(page, server, "sam")
        page.wait_for_selector("#conn[data-state=live]")
        wait_for_js(page, f"document.getElementById('agents-shown').textContent === '{ALL}'")
        yield server
    finally:
        server.stop()


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
    with windowed_live_view(sim, tmp_path, page):
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


# Each tile in the page, without what the page's own scripts write into it (the timers'
# text, its level, its place, the Act button's visibility): what the server rendered.
AS_RENDERED = """() => Object.fromEntries([...document.querySelectorAll('#agents .agent')]
  .map((tile) => {
    const copy = tile.cloneNode(true);
    for (const name of ['style', 'hidden', 'data-level']) copy.removeAttribute(name);
    for (const elt of copy.querySelectorAll('.timer, [data-since]')) elt.textContent = '';
    for (const elt of copy.querySelectorAll('.act')) elt.removeAttribute('hidden');
    for (const elt of [copy, ...copy.querySelectorAll('*')]) {  // attributes in one order
      const attributes = [...elt.attributes].map((a) => [a.name, a.value]).sort();
      for (const [name] of attributes) elt.removeAttribute(name);
      for (const [name, value] of attributes) elt.setAttribute(name, value);
    }
    return [tile.id, copy.outerHTML];
  }))"""
PATCHED = """() => {
  const tile = document.querySelector('#agents .agent');
  const [name, timer] = [tile.querySelector('.name'), tile.querySelector('.timer')];
  const states = Object.keys(JSON.parse(document.getElementById('live-config').textContent).states);
  const fresh = tile.cloneNode(true);
  fresh.removeAttribute('style');
  fresh.dataset.state = states.find((state) => state !== tile.dataset.state);
  fresh.dataset.since = new Date().toISOString();
  fresh.querySelector('.state').textContent = 'Changed';
  fresh.querySelector('.timer').textContent = '';
  document.dispatchEvent(new CustomEvent('live:frame', { detail: { html: fresh.outerHTML } }));
  return { wanted: fresh.dataset.state, state: tile.dataset.state,
           label: tile.querySelector('.state').textContent,
           same_name: tile.querySelector('.name') === name,
           same_timer: tile.querySelector('.timer') === timer,
           time: timer.textContent };
}"""
NEXT_FRAMES = "() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))"


def scrolled_through(page) -> dict:
    """Every tile the page draws as it scrolls from the top of the grid to its end, half a
    view at a time, as rendered ({id: html}); each view's tiles in name order."""
    page.evaluate("() => window.scrollTo(0, 0)")
    seen = {}
    while True:
        page.evaluate(NEXT_FRAMES)
        view = page.evaluate(AS_RENDERED)
        names = page.evaluate(
            "() => [...document.querySelectorAll('#agents .agent')]"
            ".map((t) => t.dataset.name.toLowerCase())"
        )
        assert names == sorted(names)
        seen.update(view)
        if page.evaluate("() => scrollY + innerHeight >= document.documentElement.scrollHeight"):
            return seen
        page.evaluate("() => scrollBy(0, innerHeight / 2)")


def test_a_windowed_grid_patched_while_the_floor_moves_shows_each_tile_as_rendered_fresh(
    sim_factory, tmp_path, page
):
    sim = sim_factory(
        "--faults", "--agents", str(AGENTS), "--seed", "12", "--events-per-second", "40"
    )
    sim.control("pause")
    with windowed_live_view(sim, tmp_path, page) as server:
        # The floor moves while the page scrolls through it and back; then it holds still.
        start = sim.stats()["seq"][sim.org_a]
        sim.control("resume")
        scrolled_through(page)

        def moved():
            return sim.stats()["seq"][sim.org_a] >= start + 100

        wait_until(moved, 30, "a hundred of the floor's events")
        sim.control("pause")

        # Scrolled through again, every tile is the one a page loaded now renders.
        fresh = page.context.new_page()
        fresh.set_viewport_size({"width": 1000, "height": 700})
        fresh.goto(server.url + "/")
        wait_for_js(fresh, f"document.getElementById('agents-shown').textContent === '{ALL}'")
        expected = scrolled_through(fresh)
        assert len(expected) == AGENTS
        fresh.close()
        page.bring_to_front()  # a tab behind another draws a frame a second at most

        def caught_up():
            return scrolled_through(page) == expected

        wait_until(caught_up, 30, "the patched page's tiles as rendered fresh")
        # The state filter goes over every agent as the moved floor left them, the tiles
        # out of the page as much as those in it.
        agents = sim.agents()
        states = [agent_status_value(a["status"]) for a in agents]
        state = max(set(states), key=lambda s: (0 < states.count(s) < AGENTS, s))
        page.select_option("#f-state", state)
        wanted = f"{states.count(state)} of {AGENTS} agents"
        wait_for_js(page, f"document.getElementById('agents-shown').textContent === '{wanted}'")
        in_page = page.evaluate(TILES)
        assert in_page and {tile_state for _, _, tile_state in in_page} == {state}
        page.select_option("#f-state", "")
        wait_for_js(page, f"document.getElementById('agents-shown').textContent === '{ALL}'")

        # A tile patched to another state keeps its name's and timer's nodes; its timer
        # starts again (through `live:frame`, the entry the live modules give other scripts).
        got = page.evaluate(PATCHED)
        assert got["state"] == got["wanted"] and got["label"] == "Changed"
        assert got["same_name"] and got["same_timer"] and got["time"] == "0:00"
