"""Screen readers: the live floor's changes are not announced one by one, but the service
dropping and coming back is, politely, through the page's one live region; reduced motion
turns transitions and animations off."""

from dashboard.testing.browsers import screenshot

LIVE = "#agents .agent >> nth=39"
RECORD = """() => {
  window.said = [];
  const region = document.getElementById("announcer");
  new MutationObserver(() => region.textContent && window.said.push(region.textContent))
    .observe(region, {childList: true, characterData: true, subtree: true});
}"""
LIVE_REGIONS = """() => [...document.querySelectorAll('[aria-live], [role=status], [role=alert],'
  + ' [role=log]')].filter((e) => !e.hidden).map((e) => e.id || e.className)"""


def test_the_live_view_announces_the_connection_not_every_change(floor):
    context = floor.context("supervisor")
    try:
        page = context.new_page()
        page.goto(floor.url + "/")
        page.wait_for_selector(LIVE, state="attached", timeout=60_000)
        page.wait_for_selector("#conn[data-state=live]")
        # One polite region, atomic; the indicator that ticks every second is not one.
        assert page.evaluate(LIVE_REGIONS) == ["announcer"]
        assert page.get_attribute("#announcer", "aria-live") == "polite"
        assert page.get_attribute("#conn", "aria-live") is None

        page.evaluate(RECORD)
        agent = floor.sim.agents()[2]["agentId"]
        for status in ("paused", "available", "paused", "available"):
            floor.sim.control("agent-status", agent_id=agent, status=status)
            page.wait_for_selector(f"#agent-{agent}[data-state={status}]", timeout=5000)
        page.wait_for_timeout(1500)
        assert page.evaluate("window.said") == []  # tiles, timers and figures: silent

        floor.sim.control("refuse-sockets", seconds=4)
        floor.sim.control("drop-sockets")
        page.wait_for_selector("#conn[data-state=upstream]", timeout=5000)
        page.wait_for_function("() => window.said.length >= 1", timeout=3000)
        screenshot(page, "announce-1-upstream-dropped")
        page.wait_for_selector("#conn[data-state=live]", timeout=20_000)
        page.wait_for_function("() => window.said.length >= 2", timeout=3000)
        said = page.evaluate("window.said")
        assert said[0].startswith("The service is disconnected"), said
        assert said[-1] == "Live again: the data is up to date.", said
        assert len(said) <= 3, said  # once per change of state, not once a second
    finally:
        context.close()


def test_reduced_motion_turns_transitions_and_animations_off(floor):
    context = floor.context("supervisor", reduced_motion="reduce")
    try:
        page = context.new_page()
        page.goto(floor.url + "/")
        page.wait_for_selector(LIVE, state="attached", timeout=60_000)
        durations = page.evaluate(
            """() => [...document.querySelectorAll('*')].flatMap((e) => {
              const s = getComputedStyle(e);
              return [s.transitionDuration, s.animationDuration];
            }).filter((d) => d.split(',').some((x) => parseFloat(x) > 0))"""
        )
        assert durations == []
    finally:
        context.close()
