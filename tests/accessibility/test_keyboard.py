"""Keyboard-only use of the live view and the coaching page in Chromium: Tab reaches the
filters, an agent's tile's link and the coaching actions, each with a visible focus ring,
and Enter or Space works them. A push that replaces the focused tile keeps the focus; the
live calls list is a focusable, named region; the skip link goes past the header."""

import re

from dashboard.testing.browsers import screenshot, wait_for_js

LIVE = "#agents .agent >> nth=39"
FOCUSED = """async (selector) => {
  // a push that just replaced the focused element is given a moment (up to a second) to
  // hand the focus on (static/js/a11y.js)
  const has = () => document.activeElement && document.activeElement !== document.body
    && document.activeElement.isConnected;
  for (let waited = 0; !has() && waited < 1000; waited += 50)
    await new Promise((resolve) => setTimeout(resolve, 50));
  if (!has()) return null;
  const e = document.activeElement;
  const s = getComputedStyle(e);
  const r = e.getBoundingClientRect();
  return {
    id: e.id, tag: e.tagName, text: (e.innerText || e.value || "").trim().slice(0, 60),
    outline: s.outlineStyle, width: parseFloat(s.outlineWidth), color: s.outlineColor,
    rect: [r.left, r.top, r.width, r.height], connected: e.isConnected,
    parent: e.parentElement?.parentElement?.id, scroll: window.scrollY,
    visible: r.width > 0 && r.height > 0 && r.bottom > 0 && r.right > 0,
    row: e.closest("tr, .agent")?.id || "",
    matches: !!selector && e.matches(selector),
    // a date field's calendar button, inside the browser's own shadow root: the focus is
    // not on the field (no :focus), and the browser draws that button's own ring
    picker: e.type === "datetime-local" && !e.matches(":focus"),
  };
}"""


def focused(page, selector=None):
    """The focused element's description (whether it matches `selector` too), in one round
    trip to the page: a keyboard walk makes hundreds."""
    return page.evaluate(FOCUSED, selector)


def assert_visible_focus(page, now=None):
    now = now or focused(page)
    assert now, "nothing has the focus"
    assert now["visible"], f"the focused element is off screen: {now}"
    if not now["picker"]:
        assert now["outline"] != "none" and now["width"] >= 2, f"no visible focus ring: {now}"
    return now


def tab_to(page, selector, limit=200, backwards=False):
    """Press Tab (Shift+Tab) until the focused element matches `selector`, checking the
    focus ring at each stop; the element's description. One look at each stop: a round trip
    to the page is what a stop costs."""
    before = None
    for _ in range(limit):
        page.keyboard.press("Shift+Tab" if backwards else "Tab")
        now = focused(page, selector)
        assert now, f"the focus was lost after {before}"
        before = assert_visible_focus(page, now)
        if now["matches"]:
            return before
    raise AssertionError(f"{selector} not reached in {limit} presses of Tab")


def test_the_live_view_works_from_the_keyboard(a11y_floor):
    context = a11y_floor.context("supervisor")
    try:
        page = context.new_page()
        page.goto(a11y_floor.url + "/")
        page.wait_for_selector(LIVE, state="attached", timeout=60_000)

        page.keyboard.press("Tab")  # the skip link comes first, and shows when focused
        skip = assert_visible_focus(page)
        assert skip["text"] == "Skip to content"
        screenshot(page, "keyboard-live-1-skip-link")
        page.keyboard.press("Enter")
        assert page.evaluate("document.activeElement.id") == "main"

        tab_to(page, "#f-state")
        page.keyboard.press("ArrowDown")  # the first state
        page.wait_for_url(re.compile(r"\?state=\w+"))
        screenshot(page, "keyboard-live-2-state-filter")
        page.keyboard.press("ArrowUp")  # back to all states
        page.wait_for_url(re.compile(r"/$"))

        tab_to(page, "#f-density")
        page.keyboard.press("ArrowDown")
        page.wait_for_url(re.compile(r"\?density=dense$"))
        assert page.evaluate("document.body.classList.contains('dense')")
        page.keyboard.press("ArrowUp")

        tile = tab_to(page, "#agents .agent a.name")
        screenshot(page, "keyboard-live-3-tile-link")
        agent_id = tile["row"].removeprefix("agent-")
        # A push that replaces the focused tile keeps the focus on its link.
        a11y_floor.sim.control("agent-status", agent_id=agent_id, status="paused")
        page.wait_for_selector(f"#{tile['row']}[data-state=paused]", timeout=5000)
        wait_for_js(page, f"document.activeElement.closest('#{tile['row']}') !== null", 3000)
        assert_visible_focus(page)
        page.keyboard.press("Enter")
        page.wait_for_url(f"{a11y_floor.url}/agents/{agent_id}/")
        a11y_floor.sim.control("agent-status", agent_id=agent_id, status="available")

        page.go_back()
        page.wait_for_selector(LIVE, state="attached")
        calls = tab_to(page, "#calls-list", limit=400)
        assert calls["tag"] == "UL"
        name = (
            "(l => l.getAttribute('aria-label') ||"
            " document.getElementById(l.getAttribute('aria-labelledby')).textContent)"
            "(document.getElementById('calls-list'))"
        )
        assert page.evaluate(name) == "Live calls"
        screenshot(page, "keyboard-live-4-calls-list")
    finally:
        context.close()


def test_the_coaching_page_works_from_the_keyboard(a11y_floor):
    context = a11y_floor.context("manager")
    try:
        page = context.new_page()
        page.goto(a11y_floor.url + "/coaching/")
        page.wait_for_selector("#alerts-body tr.alert-row", timeout=30_000)

        tab_to(page, "#c-sev")
        page.keyboard.press("ArrowDown")  # the first severity
        tab_to(page, "form.filters button[type=submit]")
        page.keyboard.press("Enter")
        page.wait_for_url(re.compile(r"severity=\w+"))
        page.goto(a11y_floor.url + "/coaching/")
        page.wait_for_selector("#alerts-body tr.alert-row")

        button = tab_to(page, "#alerts-body form[action$='/acknowledge/'] button")
        row = button["row"]
        screenshot(page, "keyboard-coaching-1-acknowledge")
        page.keyboard.press("Space")
        page.wait_for_selector(f"#{row} .status-acknowledged", timeout=10_000)

        tab_to(page, f"#{row} input[name=note]")
        page.keyboard.type("Listened to the call together")
        screenshot(page, "keyboard-coaching-2-resolve-note")
        page.keyboard.press("Enter")
        page.wait_for_selector(f"#{row} .status-resolved", timeout=10_000)

        tab_to(page, f"#{row} form[action$='/reopen/'] button")
        page.keyboard.press("Enter")
        page.wait_for_selector(f"#{row} .status-open", timeout=10_000)
        screenshot(page, "keyboard-coaching-3-reopened")
    finally:
        context.close()


def test_the_wallboard_links_page_works_from_the_keyboard(a11y_floor):
    context = a11y_floor.context("manager")
    try:
        page = context.new_page()
        page.goto(a11y_floor.url + "/wallboards/")
        tab_to(page, "#id_name")
        page.keyboard.type("Keyboard TV")
        tab_to(page, "input[name=panels][value=queues]")
        assert page.is_checked("input[name=panels][value=queues]")
        page.keyboard.press("Space")  # leave the queues out
        assert not page.is_checked("input[name=panels][value=queues]")
        tab_to(page, "form:not([action]) button[type=submit]")
        with page.expect_navigation():
            page.keyboard.press("Enter")
        assert page.input_value("#new-link-url").startswith(f"{a11y_floor.url}/wallboard/")
        screenshot(page, "keyboard-wallboards-1-created")

        row = page.locator("#links-title + table tbody tr", has_text="Keyboard TV").get_attribute(
            "id"
        )
        tab_to(page, f"#{row} button[type=submit]")
        with page.expect_navigation():
            page.keyboard.press("Enter")
        assert page.inner_text(f"#{row} .status") == "Revoked"
    finally:
        context.close()
