"""Themes and saved views in Chromium, from the keyboard: light and dark follow the
screen's setting until the person chooses one in the header (applied at once, kept across
pages and reloads, per person); the wallboard keeps its dark TV theme; a saved view is the
live view's filters under a name, opened from the header, its address carrying them.
Screenshots of the live view and the coaching page in both themes."""

import re

from dashboard.testing.browsers import screenshot, wait_for_js

LIVE = "#agents .agent >> nth=39"
BACKGROUND = "getComputedStyle(document.body).backgroundColor"
LIGHT_BG, DARK_BG = "rgb(244, 245, 247)", "rgb(15, 20, 27)"


def tab_to(page, selector, limit=60):
    for _ in range(limit):
        page.keyboard.press("Tab")
        if page.evaluate("s => document.activeElement?.matches(s)", selector):
            outline = page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
            assert outline != "none", f"{selector} has no visible focus"
            return
    raise AssertionError(f"{selector} not reached")


def test_both_themes_follow_the_screen_and_are_screenshotted(floor, kiosk):
    for scheme, background in (("light", LIGHT_BG), ("dark", DARK_BG)):
        context = floor.context("manager", color_scheme=scheme)
        try:
            page = context.new_page()
            page.goto(floor.url + "/")
            page.wait_for_selector(LIVE, state="attached", timeout=60_000)
            page.wait_for_selector("#conn[data-state=live]")
            assert page.evaluate(BACKGROUND) == background
            screenshot(page, f"theme-live-{scheme}")
            page.goto(floor.url + "/coaching/")
            page.wait_for_selector("#alerts-body tr.alert-row", timeout=30_000)
            assert page.evaluate(BACKGROUND) == background
            screenshot(page, f"theme-coaching-{scheme}")
            # The wallboard keeps its dark TV theme on any screen.
            page.goto(f"{floor.url}/wallboard/{kiosk}/")
            page.wait_for_selector("#conn[data-state=live]", timeout=30_000)
            assert page.evaluate(BACKGROUND) == "rgb(5, 8, 13)"
        finally:
            context.close()


def test_a_person_chooses_a_theme_from_the_keyboard_and_keeps_it(floor):
    context = floor.context("supervisor", color_scheme="light")
    try:
        page = context.new_page()
        page.goto(floor.url + "/")
        page.wait_for_selector(LIVE, state="attached", timeout=60_000)
        assert page.evaluate(BACKGROUND) == LIGHT_BG
        assert page.is_hidden("#theme-form button[type=submit]")  # the script applies it
        tab_to(page, "#theme-choice")
        page.keyboard.press("ArrowDown")  # light
        page.keyboard.press("ArrowDown")  # dark
        assert page.get_attribute("html", "data-theme") == "dark"
        assert page.evaluate(BACKGROUND) == DARK_BG  # at once, no reload
        wait_for_js(page, "document.getElementById('theme-form').dataset.kept === 'dark'")
        screenshot(page, "theme-live-chosen-dark-on-a-light-screen")

        page.goto(floor.url + "/qa/")  # kept on the server, drawn dark from the first frame
        assert page.get_attribute("html", "data-theme") == "dark"
        assert page.evaluate(BACKGROUND) == DARK_BG
        assert page.input_value("#theme-choice") == "dark"

        other = floor.context("manager", color_scheme="light")  # per person
        try:
            theirs = other.new_page()
            theirs.goto(floor.url + "/qa/")
            assert theirs.get_attribute("html", "data-theme") is None
        finally:
            other.close()

        page.select_option("#theme-choice", "system")
        wait_for_js(page, "document.getElementById('theme-form').dataset.kept === 'system'")
        page.reload()
        assert page.get_attribute("html", "data-theme") is None
        assert page.evaluate(BACKGROUND) == LIGHT_BG
    finally:
        context.close()


def test_a_supervisor_saves_a_view_and_opens_it_from_the_header(floor):
    context = floor.context("supervisor")
    try:
        page = context.new_page()
        page.goto(floor.url + "/")
        page.wait_for_selector(LIVE, state="attached", timeout=60_000)
        page.select_option("#f-sort", "time")
        page.select_option("#f-density", "dense")
        assert re.search(r"\?sort=time&density=dense$", page.url)

        tab_to(page, "#views-menu summary")
        page.keyboard.press("Enter")
        assert page.evaluate("document.getElementById('views-menu').open")
        tab_to(page, "#view-name")
        page.keyboard.type("Longest first, compact")
        screenshot(page, "views-1-saving")
        with page.expect_navigation():  # the same address: the filters it was saved from
            page.keyboard.press("Enter")
        assert page.url == f"{floor.url}/?sort=time&density=dense"
        assert page.input_value("#f-sort") == "time"
        assert page.locator("#views-menu .menu-list a").all_text_contents() == [
            "Longest first, compact"
        ]

        page.goto(floor.url + "/qa/")
        page.click("#views-menu summary")
        page.keyboard.press("Escape")  # closes, and the focus goes back to the menu's button
        assert not page.evaluate("document.getElementById('views-menu').open")
        assert page.evaluate("document.activeElement.matches('#views-menu summary')")
        page.keyboard.press("Enter")
        tab_to(page, "#views-menu .menu-list a")
        assert page.evaluate("document.activeElement.textContent") == "Longest first, compact"
        screenshot(page, "views-2-opening")
        page.keyboard.press("Enter")
        page.wait_for_url(f"{floor.url}/?sort=time&density=dense")
        page.wait_for_selector(LIVE, state="attached")
        assert page.input_value("#f-sort") == "time"
        assert page.input_value("#f-density") == "dense"
        assert page.evaluate("document.body.classList.contains('dense')")
    finally:
        context.close()
