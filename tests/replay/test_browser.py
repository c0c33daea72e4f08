"""/replay/ in Chromium against a real dashboard recording the simulated floor: the slider
by keyboard, play at 60x and pause, a step to the previous change, the moment in a shared
URL, and back to live."""

from datetime import datetime, timedelta

import pytest

from dashboard.testing.browsers import screenshot, sign_in, wait_for_js
from dashboard.testing.processes import wait_until
from dashboard.testing.servers import dashboard_on
from dashboard.testing.simulator import start_simulator

SHOWN = "document.querySelector('[data-live-at]').dataset.liveAt"


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    sim = start_simulator("--faults", "--seed", "7", "--speed", "10")
    with dashboard_on(
        sim, tmp_path_factory.mktemp("replay"), people={"bob": "supervisor"}
    ) as server:
        yield sim, server


def moment(client, at=None) -> datetime:
    """The moment the replay shows for `at` (the last recorded without one)."""
    frame = client.get("/replay/moment/", params={"at": at} if at else {}).json()
    return datetime.fromisoformat(frame["at"])


def shown(page) -> float:
    return page.evaluate(f"() => Date.parse({SHOWN})")


def test_a_supervisor_scrubs_plays_steps_shares_and_goes_back_to_live(served, page):
    sim, server = served
    errors = []
    page.on("pageerror", lambda error: errors.append(error))
    page.on("console", lambda m: m.type == "error" and errors.append(m.text))
    sign_in(page, server, "bob")
    client = server.signed_in_client("bob")
    wait_until(lambda: client.get("/replay/moment/").status_code == 200, timeout=30)
    first = moment(client, "2000-01-01T00:00:00Z")
    wait_until(lambda: moment(client) - first >= timedelta(seconds=20), timeout=40)
    page.goto(f"{server.url}/replay/")
    page.wait_for_selector("#agents .agent >> nth=39")
    slider = page.locator("#replay-at")
    assert page.get_by_label("Moment").count() == 1  # the slider is labelled
    latest = shown(page)

    slider.focus()
    page.keyboard.press("Home")  # the start of the recorded day
    wait_for_js(page, f"Date.parse({SHOWN}) < {latest - 15_000}")
    wait_for_js(page, "location.search.includes('at=')")
    start = shown(page)
    assert page.locator("#agents .agent").count() >= 40

    page.select_option("#replay-speed", "10")
    page.click("#replay-play")
    assert page.get_attribute("#replay-play", "aria-pressed") == "true"
    wait_for_js(page, f"Date.parse({SHOWN}) >= {start + 8_000}", timeout=20_000)
    page.click("#replay-play")  # pause
    assert page.get_attribute("#replay-play", "aria-pressed") == "false"
    page.wait_for_timeout(1200)
    paused = shown(page)
    page.wait_for_timeout(1200)
    assert shown(page) == paused  # paused stays put

    previous = page.get_attribute("#replay-previous", "data-at")
    page.click("#replay-previous")
    wait_for_js(page, f"{SHOWN} === {previous!r}")
    assert shown(page) < paused
    url = page.url
    assert "at=" in url
    screenshot(page, "replay-supervisor")

    other = page.context.new_page()  # the shared link shows the same moment
    other.goto(url)
    assert other.evaluate(f"() => {SHOWN}") == previous
    other.close()

    page.click("text=Back to live")
    page.wait_for_url(f"{server.url}/")
    page.wait_for_selector("#conn[data-state=live]")
    assert errors == []
