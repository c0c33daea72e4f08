"""The explain panels and a CSV download in Chromium, against a real dashboard (Daphne)
and simulated tenant: one dashboard for the module, the tests only read."""

import csv
import html
import io
from pathlib import Path

import pytest

from dashboard.testing.browsers import screenshot, sign_in
from dashboard.testing.servers import start_dashboard


@pytest.fixture(scope="module")
def server(module_simulator, tmp_path_factory):
    server = start_dashboard(
        module_simulator,
        tmp_path_factory.mktemp("figures"),
        people={"bob": "supervisor", "alice": "manager"},
    )
    yield server
    server.stop()


def filled(page, selector: str, text: str):
    """Until the panel's inputs at `selector` say `text` (explain.js fills them, and it may
    run after the click: it is deferred)."""
    page.wait_for_function(
        "([sel, text]) => document.querySelector(sel).textContent.includes(text)",
        arg=[selector, text],
        timeout=10_000,
    )


def test_each_figure_opens_its_panel_by_click_and_by_keyboard(server, page):
    errors = []
    page.on("pageerror", lambda error: errors.append(error))
    sign_in(page, server, "bob")
    page.wait_for_selector("#kpis button[popovertarget=why-occupancy]")
    page.click("#kpis button[popovertarget=why-occupancy]")
    panel = page.locator("#why-occupancy")
    panel.wait_for(state="visible")
    text = panel.inner_text()
    assert "ringing, on calls and in wrap-up ÷ (that time + agent time available)" in text
    assert "today since 00:00, UTC" in text  # the test dashboards' TIME_ZONE
    page.wait_for_function(  # the counts behind the number, from the pushed tiles
        "() => /busy of .* busy or available/.test("
        "document.querySelector('#why-occupancy [data-from=occupancy]').textContent)"
    )
    assert "Counted from the service's events since" in panel.inner_text()
    inputs = "#why-occupancy [data-from=occupancy]"
    page.wait_for_function(  # kept current while open: states under way count up to now
        "([sel, before]) => document.querySelector(sel).textContent !== before",
        arg=[inputs, page.text_content(inputs)],
        timeout=20_000,
    )
    screenshot(page, "figures-1-explain-occupancy")
    page.keyboard.press("Escape")
    panel.wait_for(state="hidden")

    page.focus("#kpis button[popovertarget=why-service_level]")  # the keyboard's way
    page.keyboard.press("Enter")
    page.locator("#why-service_level").wait_for(state="visible")
    assert "inbound calls answered within the threshold" in page.inner_text("#why-service_level")
    page.keyboard.press("Escape")
    page.locator("#why-service_level").wait_for(state="hidden")

    page.goto(f"{server.url}/campaigns/")
    page.wait_for_selector("#campaigns-table tbody tr a")
    with page.expect_download() as got:
        page.click("a.csv")
    download = got.value
    assert download.suggested_filename.startswith("campaigns-")
    text = Path(download.path()).read_text(encoding="utf-8")
    rows = list(csv.reader(io.StringIO(text, newline="")))
    shown = page.locator("#campaigns-table tbody tr").count()
    assert rows[0][:2] == ["Campaign id", "Campaign"] and len(rows) == 1 + shown

    page.click("#campaigns-table tbody tr >> nth=0 >> a")
    page.click("#campaign-body button[popovertarget=why-connect_rate]")
    page.locator("#why-connect_rate").wait_for(state="visible")
    filled(page, "#why-connect_rate [data-from=connect_rate]", "connected calls of")
    screenshot(page, "figures-2-explain-campaign")
    page.keyboard.press("Escape")

    page.goto(f"{server.url}/qa/")
    page.click("button[popovertarget=why-pass_rate]")
    page.locator("#why-pass_rate").wait_for(state="visible")
    filled(page, "#why-pass_rate [data-from=pass_rate]", "scorecards passed of")
    screenshot(page, "figures-3-explain-qa")
    assert not errors

    # what a person opens: the downloaded file, for the screenshot
    page.set_content(f"<pre style='font-size:13px'>{html.escape(text)}</pre>")
    screenshot(page, "figures-4-campaigns-csv")


SEED_ALERTS = """
from django.utils import timezone
from dashboard.quality.models import CoachingAlert
now = timezone.now()
CoachingAlert.objects.bulk_create(
    CoachingAlert(alert_id=f"bulk-{n}", agent_id="ag-1", kind="long_hold", severity="warning",
                  message=f"=cmd {n}", raised_at=now)
    for n in range(5000)
)
"""


def test_a_long_table_downloads_from_the_database_through_daphne(server):
    """Rows read in chunks on worker threads while Daphne sends them: every row arrives,
    none as a formula, and nothing goes wrong in the server."""
    server.manage("shell", "-c", SEED_ALERTS)
    client = server.signed_in_client("alice")
    with client.stream("GET", "/coaching/?format=csv&severity=warning") as r:
        assert r.status_code == 200 and r.headers["content-type"] == "text/csv; charset=utf-8"
        parts = list(r.iter_bytes())
    rows = list(csv.reader(io.StringIO(b"".join(parts).decode(), newline="")))
    assert rows[0][0] == "Raised" and len(rows) == 5001
    assert {row[7][:5] for row in rows[1:]} == {"'=cmd"}
    assert "Traceback" not in server.log()
