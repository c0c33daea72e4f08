"""The live pages in Chromium as people use them: on phones and tablets, for a minute with
the console open, and with the websocket blocked."""

import pytest

from dashboard.testing import SOAK_S
from dashboard.testing.browsers import screenshot, sign_in, wait_for_js
from dashboard.testing.links import create_link
from dashboard.testing.processes import let_pass
from dashboard.testing.servers import start_dashboard
from dashboard.testing.simulator import start_simulator

DEVICES = {"phone": (390, 844), "tablet": (768, 1024)}
SPEED = 2
NO_SIDEWAYS_SCROLL = "() => document.documentElement.scrollWidth <= window.innerWidth"


@pytest.fixture(scope="module")
def devices_dashboard(tmp_path_factory):
    """The floor at twice real speed: the soak sees its calls come and go in half the time."""
    sim = start_simulator("--faults", "--seed", "7", "--speed", SPEED)
    server = start_dashboard(sim, tmp_path_factory.mktemp("devices"), people={"mia": "manager"})
    manager = "mia"
    yield sim, server, manager
    server.stop()
    sim.stop()


def new_page(browser, size, **options):
    context = browser.new_context(viewport={"width": size[0], "height": size[1]}, **options)
    page = context.new_page()
    page.errors = []
    page.on("console", lambda m: m.type == "error" and page.errors.append(m.text))
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    return page


@pytest.mark.parametrize("device", DEVICES)
def test_phones_and_tablets_never_scroll_sideways_and_fold_the_header_into_a_menu(
    devices_dashboard, browser, device
):
    sim, server, manager = devices_dashboard
    page = new_page(browser, DEVICES[device])
    try:
        sign_in(page, server, manager)
        page.wait_for_selector("#agents .agent >> nth=39")
        width = DEVICES[device][0]
        # read in one go: a whole snapshot may replace the grid between two reads
        left, right = page.evaluate(
            "() => { const r = document.querySelector('#agents .agent').getBoundingClientRect();"
            " return [r.left, r.right]; }"
        )
        assert left >= 0 and right <= width  # the tiles reflow
        assert page.locator(".nav").is_hidden() and page.locator(".menu-button").is_visible()
        assert page.locator("#conn").is_visible()  # whether it is live stays in sight
        screenshot(page, f"live-{device}")
        page.click(".menu-button")
        assert page.locator(".nav").is_visible()
        assert page.get_attribute(".menu-button", "aria-expanded") == "true"
        screenshot(page, f"live-{device}-menu")
        page.keyboard.press("Escape")
        assert page.locator(".nav").is_hidden()
        agent = sim.agents()[0]["agentId"]
        for path in ("/", "/campaigns/", "/qa/", "/coaching/", "/wallboards/", f"/agents/{agent}/"):
            page.goto(server.url + path)
            page.wait_for_load_state("load")
            assert page.evaluate(NO_SIDEWAYS_SCROLL), (
                path,
                page.evaluate("document.documentElement.scrollWidth"),
            )
            screenshot(page, f"{device}{path.rstrip('/').replace('/', '-') or '-live'}")
        assert page.errors == []
    finally:
        page.context.close()


def test_a_soak_on_the_live_view_and_a_wallboard_logs_no_error(devices_dashboard, browser):
    """Calls start and end all the while: rows come, go, and some are gone before a page
    saw them. No fragment may be without its place (htmx logged oobErrorNoTarget for each).
    TEST_SOAK_S of the floor (20 s; `TEST_SOAK_S=60` for the whole minute), at its speed."""
    sim, server, manager = devices_dashboard
    live = new_page(browser, (1600, 1000))
    tv = new_page(browser, (1920, 1080))
    try:
        sign_in(live, server, manager)
        client = server.signed_in_client(manager)
        tv.goto(create_link(client, "Console TV", ["kpis", "agents", "queues", "alerts"]))
        for page in (live, tv):
            wait_for_js(page, "document.getElementById('conn').dataset.state === 'live'")
        seen = live.evaluate("document.querySelectorAll('#calls-list li[id]').length")
        let_pass(SOAK_S / SPEED, "the soak's pushes on both screens")
        assert live.evaluate("document.getElementById('conn').dataset.state") == "live"
        assert tv.locator("#wb-stale").is_hidden()
        assert live.errors == [] and tv.errors == [], (live.errors[:3], tv.errors[:3])
        assert seen or live.evaluate("document.querySelectorAll('#calls-list li[id]').length")
    finally:
        live.context.close()
        tv.context.close()


def test_a_blocked_socket_still_shows_the_floor_as_of_its_load_and_says_it_is_not_live(
    devices_dashboard, browser
):
    sim, server, manager = devices_dashboard
    page = new_page(browser, (1600, 1000))
    try:
        sign_in(page, server, manager)
        page.context.route_web_socket("**/ws/**", lambda ws: ws.close())  # a proxy refusing them
        page.reload()
        assert page.locator("#agents .agent").count() == len(sim.agents())
        assert page.locator("#kpis .kpi[data-kind=available] .value").inner_text().isdigit()
        wait_for_js(page, "document.getElementById('conn').dataset.state === 'reconnecting'")
        assert "Not live: showing the floor as of" in page.inner_text("#conn")
        screenshot(page, "live-socket-blocked")
    finally:
        page.context.close()
