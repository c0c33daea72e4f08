"""The drill-down in Chromium against a real dashboard and simulated tenant: from a live
tile to the agent's page, from there to a call, and its recording played on a press (and
asked for only then); both pages at a phone's width; the pages when the service is slow;
a wallboard that links nowhere and never shows a transcript."""

import httpx
import pytest

from dashboard.testing.browsers import screenshot, sign_in
from dashboard.testing.links import create_link
from dashboard.testing.processes import free_port, wait_until
from dashboard.testing.servers import WEBHOOK_SECRET, dashboard_on
from dashboard.testing.simulator import start_simulator


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    port = free_port()
    hook = ("--webhook-url", f"http://127.0.0.1:{port}/webhooks/service/")
    sim = start_simulator("--faults", "--seed", "7", *hook, "--webhook-secret", WEBHOOK_SECRET)
    with dashboard_on(
        sim,
        tmp_path_factory.mktemp("drill"),
        {"UPSTREAM_PAGE_TIMEOUT_S": "1"},
        port=port,
        people={"bob": "supervisor", "mia": "manager"},
    ) as server:
        yield sim, server


@pytest.fixture
def page_errors(page):
    errors = []
    page.on("pageerror", lambda error: errors.append(error))
    page.on("console", lambda m: "Content Security Policy" in m.text and errors.append(m.text))
    return errors


def asked(sim) -> dict:
    return sim.stats()["recordings"]


PHONE = {"width": 390, "height": 844}
WIDER_THAN_SCREEN = """() => [...document.querySelectorAll("main, main > *, main .panel")]
  .filter((e) => e.getBoundingClientRect().right > innerWidth + 1)
  .map((e) => e.id || e.className || e.tagName)"""

LINKS_OUTSIDE_INERT = (
    "() => [...document.querySelectorAll('a')].filter((a) => !a.closest('[inert]')).length"
)
CLICKED = """() => document.addEventListener('click', (e) => {
  window.clickedLink = e.composedPath().some((n) => n.tagName === 'A'); e.preventDefault();
}, {capture: true, once: true})"""


def completed_call(sim, server, agent_id) -> str:
    """A call_completed webhook for the agent, with its transcript stored: the call's path."""
    made = sim.control("webhook", event="call_completed", agent_id=agent_id)["data"]
    call_url = f"/calls/{made['call_id']}/"
    client = server.signed_in_client("bob")
    wait_until(lambda: "Agent: Hello" in client.get(call_url).text, 30, "the transcript stored")
    return call_url


def test_from_a_live_tile_to_the_agent_to_a_call_and_its_recording(served, page, page_errors):
    sim, server = served
    agent = sim.agents()[4]
    call_url = completed_call(sim, server, agent["agentId"])
    before = asked(sim)

    sign_in(page, server, "bob")
    page.click(f"#agent-{agent['agentId']} a.name")
    page.wait_for_url(f"{server.url}/agents/{agent['agentId']}/")
    page.wait_for_selector(f"#agent-calls a[href='{call_url}']")
    page.wait_for_selector("#conn[data-state=live]")
    sim.control("agent-status", agent_id=agent["agentId"], status="paused")  # pushed live
    page.wait_for_selector(f".drill-now #agent-{agent['agentId']}[data-state=paused]")
    page.wait_for_function(
        "() => /^\\d+:\\d\\d$/.test(document.querySelector('.timer').textContent)"
    )
    screenshot(page, "drill-1-agent")

    page.click(f"#agent-calls a[href='{call_url}']")
    page.wait_for_url(f"{server.url}{call_url}")
    assert "•••" in page.locator(".transcript").inner_text()  # its phone number, cut
    assert page.locator("#recording").get_attribute("src") is None
    screenshot(page, "drill-2-call")
    assert asked(sim) == before  # nothing asked for the recording before the press

    page.click("#play-recording")
    page.wait_for_function("() => document.getElementById('recording').src.includes('sig=')")
    wait_until(lambda: asked(sim)["served"] > before["served"], 10, "the audio fetched")
    assert asked(sim)["asked"] == before["asked"] + 1
    assert "works until" in page.locator("#recording-status").inner_text()
    screenshot(page, "drill-3-recording")
    assert page_errors == []
    log = server.log()  # the address is nowhere in the dashboard's log
    assert "/media/recordings" not in log and "sig=" not in log

    page.set_viewport_size(PHONE)  # both pages at a phone's width: nothing wider than it
    for path, name in ((f"/agents/{agent['agentId']}/", "drill-5-agent-phone"), (call_url, "")):
        page.goto(f"{server.url}{path}")
        page.wait_for_selector(".drill-now .agent, .transcript")
        assert page.evaluate(WIDER_THAN_SCREEN) == [], path
        screenshot(page, name or "drill-6-call-phone")


def test_pages_say_what_a_slow_service_kept_from_them(served, page):
    sim, server = served
    agent = sim.agents()[6]
    call_url = completed_call(sim, server, agent["agentId"])
    client = server.signed_in_client("bob")
    sim.control("rest-delay", seconds=3, for_s=60)  # past what a loaded machine takes here
    try:
        slow = client.get(call_url)
        assert slow.status_code == 200 and "Could not fetch" in slow.text
        assert "Agent: Hello" in slow.text  # what the dashboard holds
        agent_page = client.get(f"/agents/{agent['agentId']}/")
        assert "Could not fetch — Today&#x27;s calls from the service" in agent_page.text
        assert f'href="{call_url}"' in agent_page.text  # the webhook's call still listed
        sign_in(page, server, "bob")
        page.goto(f"{server.url}{call_url}")
        page.click("#play-recording")
        page.wait_for_selector("#recording-status:has-text('no answer within 1 s')")
        assert page.locator("#recording").is_hidden()
        screenshot(page, "drill-4-slow-service")
    finally:
        sim.control("rest-delay", seconds=0, for_s=0)
    assert httpx.get(f"{server.url}/healthz").status_code == 200


def test_a_wallboard_links_nowhere_and_shows_no_transcript(served, page):
    """Its tiles are the live view's fragments, whose names link to the agent pages: on a
    kiosk screen they are inert (no click, no focus, no link to assistive technology)."""
    sim, server = served
    agent = sim.agents()[8]["agentId"]
    completed_call(sim, server, agent)
    frames = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda f: frames.append(f)))
    page.goto(create_link(server.signed_in_client("mia"), "Drill TV", ["agents"]))
    name = page.locator(f"#agent-{agent} .name")  # found afresh each time: pushes replace it
    name.wait_for()
    assert page.evaluate(LINKS_OUTSIDE_INERT) == 0  # none reachable by pointer, keys or AT
    # read in one go: a push may replace the link between finding it and reading its style
    decoration = "(id) => getComputedStyle(document.querySelector(`#agent-${id} .name`))"
    assert page.evaluate(f"{decoration}.textDecorationLine", agent) == "none"
    page.evaluate(CLICKED)
    # the name's middle, read in one go (a push may replace the tile between two reads)
    x, y = page.evaluate(
        """(id) => {
          const name = document.querySelector(`#agent-${id} .name`);
          name.scrollIntoView({block: "center"});
          const r = name.getBoundingClientRect();
          return [r.x + r.width / 2, r.y + r.height / 2];
        }""",
        agent,
    )
    page.mouse.click(x, y)
    assert page.evaluate("() => window.clickedLink") is False  # the name took no click
    for _ in range(3):
        page.keyboard.press("Tab")
        assert page.evaluate("() => document.activeElement.closest('a') === null")
    screenshot(page, "drill-7-wallboard")
    shown = page.content() + "".join(str(frame) for frame in frames)
    assert "Agent: Hello" not in shown and "transcript" not in shown.lower()
