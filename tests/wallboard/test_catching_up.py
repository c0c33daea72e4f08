"""A TV that cannot keep up, in Chromium against a real dashboard and simulated tenant: a 4K
wallboard whose CPU is throttled far below what the floor's pushes need says it is catching
up, then is sent whole panels at its pace (the server's note says nothing is lost, the page
says which it painted); once the floor is quiet, still throttled, it shows exactly the
state (every tile as the server has it), its tiles grouped by state, one tile to a place,
and follows the pushes again."""

import pytest

from dashboard.testing.browsers import wait_for_js
from dashboard.testing.links import create_link
from dashboard.testing.processes import wait_until
from dashboard.testing.servers import start_dashboard
from dashboard.testing.simulator import start_simulator

AGENTS = 400
TILES = """() => Object.fromEntries([...document.querySelectorAll('#agents .agent')].map(
  (t) => [t.id, [t.dataset.seq, t.dataset.state, t.dataset.since]]))"""
ALL_TILES = f"document.querySelectorAll('#agents .agent').length === {AGENTS}"
# The tiles as the screen shows them, read top to bottom and left to right: whether each
# state's group follows the one before it (live-config's order), and how many places.
GROUPS = """() => {
  const order = Object.keys(JSON.parse(document.getElementById('live-config').textContent).states);
  const at = [...document.querySelectorAll('#agents .agent')].map((t) => {
    const r = t.getBoundingClientRect();
    return [Math.round(r.top), Math.round(r.left), order.indexOf(t.dataset.state)];
  }).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  return {grouped: at.every((t, i) => i === 0 || at[i - 1][2] <= t[2]),
          places: new Set(at.map((t) => `${t[0]},${t[1]}`)).size};
}"""


@pytest.fixture(scope="module")
def paused_fast_floor(tmp_path_factory):
    sim = start_simulator("--faults", "--agents", AGENTS, "--events-per-second", 150, "--seed", 5)
    sim.control("pause")
    # Any wait counts as far behind: how far a throttled page falls depends on the machine.
    # Whole panels for 5 s at least (and three of them), not a TV's 15 s, before pushes again.
    server = start_dashboard(
        sim,
        tmp_path_factory.mktemp("tv"),
        extra_env={"WALLBOARD_FAR_BEHIND_S": "1", "WALLBOARD_CATCH_UP_HOLD_S": "5"},
        people={"mia": "manager"},
    )
    try:
        manager = server.signed_in_client("mia")
        yield sim, server, manager
    finally:
        server.stop()
        sim.stop()


@pytest.mark.timeout(600)
def test_a_tv_that_falls_behind_says_so_then_shows_the_state(paused_fast_floor, browser):
    sim, server, manager = paused_fast_floor
    url = create_link(manager, "Slow TV", ["agents"])
    context = browser.new_context(viewport={"width": 3840, "height": 2160})
    tv = context.new_page()
    errors, said = [], []
    tv.on("pageerror", lambda e: errors.append(str(e)))
    tv.on("websocket", lambda ws: ws.on("framesent", lambda m: said.append(m)))
    try:
        tv.goto(url, timeout=120_000)  # a 4K page of 400 tiles, on a loaded machine
        wait_for_js(tv, ALL_TILES)
        cdp = context.new_cdp_session(tv)
        cdp.send("Emulation.setCPUThrottlingRate", {"rate": 20})
        sim.control("resume")
        note = "document.getElementById('catching-up')"
        says = f"{note}?.hidden === false && {note}.textContent.includes('nothing is lost')"
        wait_for_js(tv, says, 90_000)  # one evaluation: the page answers slowly

        def told(what):  # the sync API hears the page's socket only while it talks to the page
            tv.evaluate("1")
            return any(what in str(m) for m in said)

        # It asks for whole panels once far behind for 10 s on end (wallboard.js).
        wait_until(lambda: told('"behind":true'), 90, lambda: f"the page to ask: {said}")
        # Still a slow screen, but not so slow that the pushes already on their way when it
        # asked take half a minute to paint before the whole panels.
        cdp.send("Emulation.setCPUThrottlingRate", {"rate": 4})
        server_note = "document.getElementById('wb-catching-up')"
        whole = f"{server_note}.hidden === false && {server_note}.textContent.includes('lost')"
        wait_for_js(tv, whole, 180_000)  # whole panels, once what was on its way is painted
        wait_until(lambda: told('"painted"'), 90, lambda: f"the page to say it painted: {said}")
        sim.control("pause")
        # The state as the server has it once the floor is quiet: the same link's page,
        # rendered now. The slow TV gets there by itself.
        other = browser.new_context(viewport={"width": 3840, "height": 2160})  # another screen
        fresh = other.new_page()
        fresh.goto(url, timeout=120_000)
        wait_for_js(fresh, ALL_TILES)
        state = fresh.evaluate(TILES)
        other.close()
        tv.bring_to_front()  # a screen behind another draws a frame a second at most
        assert len(state) == AGENTS
        shown = {}

        def caught_up():
            shown.clear()
            shown.update(tv.evaluate(TILES))
            return shown == state

        def differ():
            differ = [(k, shown.get(k), v) for k, v in state.items() if shown.get(k) != v]
            return f"the TV to catch up: {len(differ)} tiles differ, {differ[:3]}"

        wait_until(caught_up, 120, differ, interval=1)
        groups = {}

        def grouped():
            groups.update(tv.evaluate(GROUPS))
            return groups["grouped"]

        wait_until(grouped, 30, lambda: f"the TV's tiles grouped by state: {groups}", interval=1)
        assert groups["places"] == AGENTS
        wait_for_js(tv, f"{server_note}.hidden === true", 90_000)  # following the pushes again
        assert errors == []
    finally:
        sim.control("pause")
        context.close()
