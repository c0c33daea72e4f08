"""Screen readers: the live floor's changes are not announced one by one, but the service
dropping and coming back is, politely, through the page's one live region; reduced motion
turns transitions and animations off; a new critical alert is announced once."""

import json
import re

import httpx

from dashboard.testing.browsers import screenshot
from dashboard.testing.deliveries import ALERT, delivery
from dashboard.testing.servers import WEBHOOK_SECRET
from dashboard.upstream.webhooks import signature

LIVE = "#agents .agent >> nth=39"
RECORD = """() => {
  window.said = [];
  const region = document.getElementById("announcer");
  new MutationObserver(() => region.textContent && window.said.push(region.textContent))
    .observe(region, {childList: true, characterData: true, subtree: true});
}"""
LIVE_REGIONS = """() => [...document.querySelectorAll('[aria-live], [role=status], [role=alert],'
  + ' [role=log]')].filter((e) => !e.hidden).map((e) => e.id || e.className)"""
# What was said about the connection: the simulator's own critical coaching alerts may come
# at any moment on the shared floor, and are (rightly) said too.
SAID = "window.said.filter((s) => !s.includes('critical coaching alert'))"


def test_the_live_view_announces_the_connection_not_every_change(a11y_floor):
    context = a11y_floor.context("supervisor")
    try:
        page = context.new_page()
        page.goto(a11y_floor.url + "/")
        page.wait_for_selector(LIVE, state="attached", timeout=60_000)
        page.wait_for_selector("#conn[data-state=live]")
        # One polite region for what happens on the floor, atomic; the indicator that ticks
        # every second is not one. The alert tray's own line answers only its user's click
        # ("notifications are blocked by this browser"): a status message of its own; so do
        # the monitoring bar's and the Act menu's lines (the service's answer to this
        # person's own request), present for those who may act.
        assert page.evaluate(LIVE_REGIONS) == [
            "alert-notify-status",
            "bar-out",
            "act-out",
            "announcer",
        ]
        assert page.get_attribute("#announcer", "aria-live") == "polite"
        assert page.get_attribute("#conn", "aria-live") is None

        page.evaluate(RECORD)
        agent = a11y_floor.sim.agents()[2]["agentId"]
        for status in ("paused", "available", "paused", "available"):
            a11y_floor.sim.control("agent-status", agent_id=agent, status=status)
            page.wait_for_selector(f"#agent-{agent}[data-state={status}]", timeout=20_000)
        page.wait_for_timeout(1500)
        assert page.evaluate(f"() => {SAID}") == []  # tiles, timers and figures: silent

        a11y_floor.sim.control("refuse-sockets", seconds=4)
        a11y_floor.sim.control("drop-sockets")
        # the indicator follows on the page's one-second tick: late on a loaded machine
        page.wait_for_selector("#conn[data-state=upstream]", timeout=10_000)
        page.wait_for_function(f"() => {SAID}.length >= 1", timeout=3000)
        screenshot(page, "announce-1-upstream-dropped")
        page.wait_for_selector("#conn[data-state=live]", timeout=20_000)
        page.wait_for_function(f"() => {SAID}.length >= 2", timeout=3000)
        said = page.evaluate(f"() => {SAID}")
        assert said[0].startswith("The service is disconnected"), said
        assert said[-1] == "Live again: the data is up to date.", said
        assert len(said) <= 3, said  # once per change of state, not once a second
    finally:
        context.close()


def test_reduced_motion_turns_transitions_and_animations_off(a11y_floor):
    context = a11y_floor.context("supervisor", reduced_motion="reduce")
    try:
        page = context.new_page()
        page.goto(a11y_floor.url + "/")
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


def post_critical_alert(a11y_floor, alert_id):
    """A signed coaching_alert delivery, critical, as the service would send it."""
    data = {**ALERT, "alert_id": alert_id, "agent_id": a11y_floor.sim.agents()[4]["agentId"]}
    body = json.loads(delivery(data=data))
    body["organization_id"] = a11y_floor.sim.org_a
    raw = json.dumps(body).encode()
    r = httpx.post(
        f"{a11y_floor.url}/webhooks/service/",
        content=raw,
        headers={
            "content-type": "application/json",
            "x-webhook-event": "coaching_alert",
            "x-webhook-signature": signature(WEBHOOK_SECRET, raw),
        },
        timeout=10,
    )
    assert r.status_code < 300, r.text


def test_a_new_critical_alert_is_announced_on_the_live_view_and_the_coaching_page(a11y_floor):
    live = a11y_floor.context("manager")
    coaching = a11y_floor.context("manager")
    try:
        floor_page = live.new_page()
        floor_page.goto(a11y_floor.url + "/")
        floor_page.wait_for_selector(LIVE, state="attached", timeout=60_000)
        floor_page.wait_for_selector("#conn[data-state=live]")
        floor_page.evaluate(RECORD)
        alerts_page = coaching.new_page()
        alerts_page.goto(a11y_floor.url + "/coaching/")
        alerts_page.wait_for_selector("#conn[data-state=live]")
        alerts_page.evaluate(RECORD)

        post_critical_alert(a11y_floor, "a11y-critical-1")
        # the simulator's own critical alerts may be said too, even first
        alerts_page.wait_for_function(
            "() => window.said.some((s) => s.startsWith('New critical coaching alert: Long hold'))",
            timeout=10_000,
        )
        floor_page.wait_for_function("() => window.said.length >= 1", timeout=10_000)
        said = floor_page.evaluate("window.said")
        assert re.fullmatch(r"\d+ open critical coaching alerts?\.", said[0]), said
    finally:
        live.close()
        coaching.close()
