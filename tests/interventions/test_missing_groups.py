"""A service without the call control or the agent-status group (404/405 for the whole
path): in Chromium, the controls go away with a one-line note, on the page that found out
and on every page opened after, and what the service still offers keeps working."""

import pytest

from dashboard.testing.browsers import sign_in
from dashboard.testing.interventions import live_call, truth

NO_MONITOR = "This service does not offer monitoring calls."
NO_STATE = "This service does not offer setting agents' states."


@pytest.fixture
def page_errors(page):
    errors = []
    page.on("pageerror", lambda error: errors.append(error))
    return errors


@pytest.mark.timeout(240)  # the module's tenant and dashboard, three page loads, two faults
def test_a_missing_group_hides_its_controls_with_a_one_line_note(
    served, browser, page, page_errors
):
    sim, server = served
    call_id, agent = live_call(sim, server, 2)
    row, tile = f"#call-{call_id}", f"#agent-{agent['agentId']}"
    idle = sim.agents()[3]["agentId"]
    sign_in(page, server, "mia")
    page.wait_for_selector(f"{row} .act:not([hidden])")
    assert page.is_hidden("#act-note")

    sim.control("intervention-fault", status=404, group="monitor", seconds=120)
    page.click(f"{row} .act")
    page.wait_for_selector("#act-menu[open]")
    if page.is_visible("#act-dial-input"):
        page.fill("#act-dial-input", "+447700900777")
    page.click("#act-menu button[value=listen]")
    page.wait_for_selector("#act-note:visible")
    assert page.inner_text("#act-note") == NO_MONITOR
    assert "does not offer monitoring calls" in page.inner_text("#act-menu .act-out")
    page.keyboard.press("Escape")
    assert page.is_hidden(f"{row} .act")  # a call row offers monitoring only
    assert page.is_visible(f"#agent-{idle} .act")  # the agents' states still offered
    assert not [s for s in truth(sim)["sessions"] if s["call_id"] == call_id]

    other = browser.new_context(viewport={"width": 1400, "height": 900}).new_page()
    sign_in(other, server, "bob")  # opened after: hidden from the start, said once
    other.wait_for_selector(f"#agent-{idle} .act:not([hidden])")
    assert other.inner_text("#act-note") == NO_MONITOR
    assert other.is_hidden(f"{row} .act")

    sim.control("intervention-fault", status=405, group="agent-status", seconds=120)
    other.click(f"#agent-{idle} .act")
    other.wait_for_selector("#act-menu[open]")
    other.click("#act-menu .act-state button[value=available]")
    other.wait_for_function(
        "() => document.getElementById('act-note').textContent.includes('agents')"
    )
    other.keyboard.press("Escape")
    assert other.inner_text("#act-note") == f"{NO_MONITOR} {NO_STATE}"
    assert other.locator(".act:visible").count() == 0
    before = truth(sim)["agents"]
    page.reload()  # both groups now hidden at load, the floor still live
    page.wait_for_selector("#conn[data-state=live]")
    page.wait_for_selector(tile)
    assert page.inner_text("#act-note") == f"{NO_MONITOR} {NO_STATE}"
    assert page.locator(".act:visible").count() == 0
    # Nothing was changed on the service by a person (the floor moves on its own meanwhile).
    assert truth(sim)["agents"][idle]["changed_by"] == before[idle]["changed_by"]
    assert page_errors == []
    sim.control("intervention-fault", status=0, seconds=0)
    sim.control("end-call", call_id=call_id)
