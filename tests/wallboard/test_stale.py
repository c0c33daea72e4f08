"""Never a frozen screen that looks live: the stale overlay when the service or the
dashboard goes away, gone by itself when they are back; a new deploy reloads the page."""

import pytest

from dashboard.testing.browsers import screenshot, wait_for_js
from dashboard.testing.links import create_link
from dashboard.testing.servers import start_dashboard

OVERLAY_SHOWN = "!document.getElementById('wb-stale').hidden"
OVERLAY_GONE = "document.getElementById('wb-stale').hidden"
LIVE = "document.getElementById('conn').dataset.state === 'live'"


@pytest.fixture
def board(sim_factory, tmp_path, page):
    """A wallboard on a 40-agent floor; `servers` ends with whichever dashboard runs last."""
    sim = sim_factory("--faults", "--seed", "7")
    servers = [start_dashboard(sim, tmp_path, {"BUILD_ID": "build-1"}, people={"mia": "manager"})]
    manager = servers[0].signed_in_client("mia")
    page.goto(create_link(manager, "Stale TV", ["kpis", "agents"], rotation_s=60))
    wait_for_js(page, LIVE)
    yield sim, servers
    for server in servers:
        server.stop()


def test_it_covers_the_screen_while_the_service_is_gone_and_clears_by_itself(board, page):
    sim, _ = board
    assert page.locator("#wb-stale").is_hidden()
    sim.control("refuse-sockets", seconds=6)  # twice the staleness limit (3 s under test)
    sim.control("drop-sockets")
    wait_for_js(page, OVERLAY_SHOWN, timeout=30_000)
    text = page.inner_text("#wb-stale")
    assert "Data stale since" in text and "lost the call-centre service" in text
    screenshot(page, "wallboard-stale-upstream")
    wait_for_js(page, OVERLAY_GONE, timeout=90_000)  # the bridge is back, with fresh data
    wait_for_js(page, LIVE)


def test_it_covers_the_screen_while_the_dashboard_is_down_and_reloads_on_a_new_build(
    board, page, tmp_path
):
    sim, servers = board
    port = int(servers[0].url.rsplit(":", 1)[1])
    page.evaluate("() => { window.sameDocument = true; }")
    servers[0].stop()
    wait_for_js(page, OVERLAY_SHOWN, timeout=30_000)
    assert "No updates from the dashboard" in page.inner_text("#wb-stale")
    screenshot(page, "wallboard-stale-dashboard")

    servers.append(start_dashboard(sim, tmp_path, {"BUILD_ID": "build-1"}, port=port))
    wait_for_js(page, OVERLAY_GONE, timeout=90_000)  # htmx reconnected: fresh data, same page
    assert page.evaluate("() => window.sameDocument") is True

    servers[-1].stop()
    with page.expect_navigation(timeout=120_000):  # the new build's first message reloads it
        servers.append(start_dashboard(sim, tmp_path, {"BUILD_ID": "build-2"}, port=port))
    assert page.evaluate("() => window.sameDocument") is None
    config = page.evaluate("() => JSON.parse(document.getElementById('live-config').textContent)")
    assert config["build"] == "build-2"
    wait_for_js(page, LIVE)
