"""The campaigns pages and the live view's charts in Chromium, against a real dashboard
process and simulated tenant refreshing every second."""

import pytest

from dashboard.testing.browsers import screenshot, sign_in
from dashboard.testing.processes import free_port
from dashboard.testing.servers import start_dashboard


@pytest.fixture
def served(sim_factory, tmp_path):
    port = free_port()
    hook = ("--webhook-url", f"http://127.0.0.1:{port}/webhooks/service/")
    secret = ("--webhook-secret", "e2e-webhook-secret")  # start_dashboard's secret
    # Twelve times real speed: the outcomes and QA scores that follow finished calls (their
    # webhooks) come within seconds of the start.
    sim = sim_factory("--faults", "--seed", "7", "--speed", "12", *hook, *secret)
    env = {"UPSTREAM_REFRESH_INTERVAL_S": "1"}
    server = start_dashboard(sim, tmp_path, env, port=port, people={"bob": "supervisor"})
    yield sim, server
    server.stop()


@pytest.fixture
def page_errors(page):
    """Script errors on the page (a chart that failed to draw, for one)."""
    errors = []
    page.on("pageerror", lambda error: errors.append(error))
    return errors


def test_it_shows_campaigns_a_campaign_and_a_failed_pull_without_blanking(
    served, page, page_errors
):
    sim, server = served
    sign_in(page, server, "bob")
    page.goto(f"{server.url}/campaigns/")
    page.wait_for_selector("#campaigns-table tbody tr >> nth=3")
    assert page.locator(".asof time").first.inner_text()  # "as of HH:MM:SS"
    # fresh: pulled every second, stale past two; a loaded machine's slow pass may show the
    # badge for a moment before the next push
    page.locator(".badge-stale").first.wait_for(state="hidden")
    page.click("button.sort[data-key=progress]")
    page.click("button.sort[data-key=progress]")  # twice: most progress first
    assert "dir=desc" in page.url
    rows = "#campaigns-table tbody tr"
    progress = page.eval_on_selector_all(rows, "rows => rows.map(r => Number(r.dataset.progress))")
    assert progress == sorted(progress, reverse=True)
    page.wait_for_selector("#ai-status[data-enabled=on]")
    screenshot(page, "campaigns-1-list")

    page.click("#campaigns-table tbody tr >> nth=0 >> a")
    page.wait_for_selector("#campaign-body .kpis")
    page.wait_for_selector(".chart[data-source=chart-campaign] canvas", timeout=30000)
    page.wait_for_selector("#campaign-body meter", timeout=60000)  # outcomes, by webhook
    screenshot(page, "campaigns-2-campaign")

    page.goto(f"{server.url}/campaigns/")
    page.wait_for_selector("#campaigns-table tbody tr >> nth=3")
    sim.control("rest-errors", status=503, seconds=20)
    page.wait_for_selector(".asof-error", timeout=30000)
    page.wait_for_selector(".badge-stale:visible", timeout=15000)
    assert page.locator("#campaigns-table tbody tr").count() == 4  # the last good copy stays
    assert "HTTP 503" in page.locator(".asof-error").inner_text()
    screenshot(page, "campaigns-3-stale")
    assert not page_errors


def test_it_draws_the_floors_day_and_extends_it_live(served, page, page_errors):
    sim, server = served
    sign_in(page, server, "bob")
    page.wait_for_selector(".chart[data-source=chart-calls] canvas", timeout=30000)
    page.wait_for_selector(".chart[data-source=chart-service] canvas")
    first = page.locator("#chart-calls").text_content()
    page.wait_for_function(
        "before => document.getElementById('chart-calls').textContent !== before",
        arg=first,
        timeout=30000,
    )  # the recorder pushed the grown day; the chart redraws from it
    page.locator(".intraday").scroll_into_view_if_needed()
    screenshot(page, "live-intraday")
    page.goto(f"{server.url}/qa/")
    page.wait_for_selector(".chart[data-source=chart-qa] canvas", timeout=60000)  # by webhook
    screenshot(page, "qa-trend")
    assert not page_errors
