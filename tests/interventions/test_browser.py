"""The intervention menu and the session bar in Chromium, by keyboard, against a real
dashboard and simulated tenant: the monitoring phone asked at first use, the bar moving
with the service's events (dialling, connected, switched, ended), a second supervisor's
page seeing who listens, and no control on a wallboard."""

import pytest

from dashboard.testing.browsers import screenshot, sign_in, wait_for_js
from dashboard.testing.interventions import live_call, sessions_on
from dashboard.testing.links import create_link
from dashboard.testing.processes import wait_until


@pytest.fixture
def page_errors(page):
    errors = []
    page.on("pageerror", lambda error: errors.append(error))
    page.on("console", lambda m: "Content Security Policy" in m.text and errors.append(m.text))
    return errors


def tab_to(page, selector, most=400):
    """Press Tab until `selector` has the focus, as a keyboard user would."""
    for _ in range(most):
        page.keyboard.press("Tab")
        if page.evaluate(f"() => document.activeElement.matches({selector!r})"):
            return
    raise AssertionError(f"Tab never reached {selector}")


def test_monitoring_by_keyboard_with_the_bar_and_a_second_page_following(
    served, browser, page, page_errors
):
    sim, server = served
    call_id, agent = live_call(sim, server, 5)
    row = f"#call-{call_id}"
    sign_in(page, server, "mia")
    page.wait_for_selector("#conn[data-state=live]")
    other = browser.new_context(viewport={"width": 1400, "height": 900}).new_page()
    sign_in(other, server, "bob")
    other.wait_for_selector(f"{row} .act:not([hidden])")

    tab_to(page, f"{row} .act")
    page.keyboard.press("Enter")
    page.wait_for_selector("#act-menu[open]")
    assert page.is_visible("#act-dial-input")  # no monitoring phone yet: asked now
    tab_to(page, "#act-dial-input")
    page.keyboard.type("+447700900444")
    tab_to(page, "#act-menu .act-monitor button[value=listen]")
    page.keyboard.press("Enter")
    page.wait_for_selector("#act-menu .act-out[data-ok]")
    assert "ringing you on +447700900444" in page.inner_text("#act-menu .act-out")
    assert len(sessions_on(sim, call_id)) == 1
    page.keyboard.press("Escape")
    wait_for_js(page, f"document.activeElement.matches('{row} .act')")  # focus back

    page.wait_for_selector("#monitor-bar[data-state=connected]")
    assert page.inner_text("#monitor-bar .bar-mode") == "Listening"
    other.wait_for_selector(f"{row} .monitored[data-state=connected][data-mode=listen]")
    assert "Listened by mia (listen)" in other.inner_text(row)
    other.wait_for_selector(f"#agent-{agent['agentId']} .monitored")
    screenshot(page, "act-1-listening")

    page.focus("#monitor-bar button[value=whisper]")
    page.keyboard.press("Enter")
    page.wait_for_selector("#monitor-bar[data-mode=whisper]")
    other.wait_for_selector(f"{row} .monitored[data-mode=whisper]")
    assert sessions_on(sim, call_id)[0]["mode"] == "whisper"

    page.focus("#monitor-bar button[name=hang_up]")
    page.keyboard.press("Enter")
    page.wait_for_selector("#monitor-bar[data-state=ended]")
    other.wait_for_function(f"() => !document.querySelector('{row} .monitored')")
    wait_until(lambda: sessions_on(sim, call_id)[0]["state"] == "ended", 10, "hung up")
    screenshot(page, "act-2-ended")
    assert page_errors == []
    sim.control("end-call", call_id=call_id)


def test_a_double_click_sends_one_request_and_the_call_page_shows_the_session(
    served, page, page_errors
):
    sim, server = served
    call_id, _ = live_call(sim, server, 6)
    sign_in(page, server, "bob")
    page.goto(f"{server.url}/calls/{call_id}/")
    page.wait_for_selector(".drill-now .act:not([hidden])")
    page.click(".drill-now .act")
    page.wait_for_selector("#act-menu[open]")
    if page.is_visible("#act-dial-input"):
        page.fill("#act-dial-input", "sip:bob@pbx.local")
    page.dblclick("#act-menu .act-monitor button[value=listen]")
    page.wait_for_selector("#act-menu .act-out[data-ok]")
    assert len(sessions_on(sim, call_id)) == 1
    page.keyboard.press("Escape")
    page.wait_for_selector("#monitor-bar[data-state=connected]")
    page.wait_for_selector(".drill-now .monitored[data-state=connected]")
    sim.control("end-call", call_id=call_id)  # the call ends under the session
    page.wait_for_selector("#monitor-bar[data-state=ended]")
    assert page_errors == []


def test_a_wallboard_never_offers_the_controls(served, page):
    sim, server = served
    call_id, agent = live_call(sim, server, 7)
    page.goto(create_link(server.signed_in_client("mia"), "Act TV", ["agents"]))
    page.wait_for_selector(f"#agent-{agent['agentId']}")
    assert page.locator(".act:visible").count() == 0
    assert page.locator("#act-menu, #monitor-bar").count() == 0
    sim.control("end-call", call_id=call_id)


def test_a_coaching_alert_on_a_live_call_offers_listen_and_whisper(served, page):
    sim, server = served
    call_id, _ = live_call(sim, server, 8)
    sim.control("coaching-alert-on-call", call_id=call_id)
    sign_in(page, server, "mia")
    page.goto(f"{server.url}/coaching/")
    offer = page.locator(f"#main button.act[data-call='{call_id}']")  # the tray has its own
    offer.wait_for()
    offer.focus()
    page.keyboard.press("Enter")
    page.wait_for_selector("#act-menu[open]")
    assert page.is_visible("#act-menu button[value=whisper]")
    assert not page.is_visible("#act-menu button[value=barge]")
    assert not page.is_visible("#act-menu .act-state")
    if page.is_visible("#act-dial-input"):
        page.fill("#act-dial-input", "+447700900555")
    page.click("#act-menu button[value=whisper]")
    page.wait_for_selector("#act-menu .act-out[data-ok=true]")
    [session] = sessions_on(sim, call_id)
    assert session["mode"] == "whisper"
    sim.control("end-call", call_id=call_id)


@pytest.mark.timeout(240)  # alone, it starts the module's tenant and dashboard too
def test_a_coaching_alert_on_a_live_call_offers_listen_and_whisper_in_the_tray(
    served, page, page_errors
):
    sim, server = served
    call_id, _ = live_call(sim, server, 9)
    sim.control("coaching-alert-on-call", call_id=call_id)
    sign_in(page, server, "bob")
    page.click("#alerts-menu summary")
    offer = page.locator(f"#alert-offers button.act[data-call='{call_id}']")
    offer.wait_for()  # shown: bob may act on this call's team
    assert page.is_visible(f"#alert-offers li[data-call='{call_id}']")
    offer.click()
    page.wait_for_selector("#act-menu[open]")
    assert page.is_visible("#act-menu button[value=listen]")
    assert page.is_visible("#act-menu button[value=whisper]")
    assert not page.is_visible("#act-menu button[value=barge]")
    if page.is_visible("#act-dial-input"):
        page.fill("#act-dial-input", "+447700900666")
    page.click("#act-menu button[value=listen]")
    page.wait_for_selector("#act-menu .act-out[data-ok=true]")
    [session] = sessions_on(sim, call_id)
    assert session["mode"] == "listen"
    page.keyboard.press("Escape")

    sim.control("end-call", call_id=call_id)  # the call ends: the offer goes with it
    page.wait_for_selector(f"#alert-offers li[data-call='{call_id}']", state="detached")
    assert page_errors == []


def test_the_tray_offers_nothing_to_a_wallboard_viewer(served, page):
    sim, server = served
    call_id, _ = live_call(sim, server, 10)
    sim.control("coaching-alert-on-call", call_id=call_id)
    sign_in(page, server, "mia")
    page.wait_for_selector(f"#alert-offers li[data-call='{call_id}']", state="attached")
    viewer = page.context.browser.new_context().new_page()
    sign_in(viewer, server, "wally")
    viewer.wait_for_selector(f"#alert-offers li[data-call='{call_id}']", state="attached")
    assert viewer.locator("#alert-offers .act:not([hidden])").count() == 0
    sim.control("end-call", call_id=call_id)
