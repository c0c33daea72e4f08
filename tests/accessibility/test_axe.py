"""axe-core's WCAG 2.1 A and AA rules over every page, signed in per role, in the light and
the dark colour scheme (switched on the loaded page), with the live floor on screen (40
agents, some amber and red). A failure lists each violation: its rule, impact, node count
and the first selectors, and leaves a screenshot of the page in that scheme."""

import pytest

from dashboard.testing.axe import LICENCE, assert_no_violations

LIVE = "#agents .agent >> nth=39"
MY_FLOOR = "#agents .agent"  # a team page holds its teams' tiles only
# A tile shown amber or red (not one of another team's, hidden on my floor)
AMBER_OR_RED = ".agent[data-level]:not([data-level='']):not([hidden])"
# (name, role, path, what shows the page has its data); {agent}, {call}, {campaign} from ids
PAGES = [
    ("sign-in", None, "/accounts/login/", "#id_username"),
    ("live-supervisor", "supervisor", "/", LIVE),
    ("live-manager", "manager", "/", LIVE),
    ("live-wallboard-viewer", "wallboard", "/", LIVE),
    ("campaigns", "supervisor", "/campaigns/", "#campaigns-body table"),
    ("campaign", "manager", "/campaigns/{campaign}/", "#campaign-body"),
    ("qa", "supervisor", "/qa/", "main .panel"),
    ("coaching", "manager", "/coaching/", "#alerts-body tr.alert-row"),
    ("wallboard-links", "manager", "/wallboards/", "main form"),
    ("agent", "supervisor", "/agents/{agent}/", "main .panel"),
    ("call", "manager", "/calls/{call}/", "main .panel"),
    ("search", "supervisor", "/search/?q=a", "main"),
    ("preferences", "supervisor", "/accounts/preferences/", "main form"),
    ("replay", "supervisor", "/replay/", "#replay-at"),  # the floor as the recorder kept it
    # My floor: two teams' tiles, their KPI strip, and the teams chosen in the settings
    ("live-my-floor", "tess", "/", MY_FLOOR),
    ("preferences-my-teams", "tess", "/accounts/preferences/", "#my-teams input:checked"),
    # The person's own dark theme on a light screen (data-theme, not the media query)
    ("live-chosen-dark", "dora", "/", LIVE),
    ("coaching-chosen-dark", "dora", "/coaching/", "#alerts-body tr.alert-row"),
    ("qa-chosen-dark", "dora", "/qa/", "main .panel"),
]


@pytest.fixture(scope="module")
def tab(a11y_floor):
    """One page per role for the module, taken from page to page: a new context (and its
    renderer process) costs Chromium half as much as loading a page."""
    contexts = {}

    def signed_in(role):
        if role not in contexts:
            contexts[role] = a11y_floor.context(role)
            contexts[role].new_page()
        return contexts[role].pages[0]

    yield signed_in
    for context in contexts.values():
        context.close()


def test_the_header_menu_open_has_no_wcag_violation(a11y_floor, tab):
    page = tab("supervisor")
    page.goto(a11y_floor.url + "/?state=paused")
    page.click("#views-menu summary")
    page.wait_for_selector("#save-view", state="visible")
    assert_no_violations(page, "views-menu")


def test_axe_is_vendored_with_its_licence():
    assert "Mozilla Public License" in LICENCE.read_text()


@pytest.mark.parametrize(("name", "role", "path", "ready"), PAGES, ids=[p[0] for p in PAGES])
def test_page_has_no_wcag_violation(a11y_floor, ids, tab, name, role, path, ready):
    page = tab(role)
    page.goto(a11y_floor.url + path.format(**ids))
    page.wait_for_selector(ready, state="attached", timeout=60_000)
    if ready in (LIVE, MY_FLOOR):
        page.wait_for_selector("#conn[data-state=live]")
        page.wait_for_selector(AMBER_OR_RED, timeout=15_000)
    page.wait_for_timeout(500)  # charts drawn, timers ticked
    assert_no_violations(page, name)


SHOW_PANEL = """(key) => {
  for (const p of document.querySelectorAll('.wb-panel')) p.hidden = p.dataset.panel !== key;
}"""


def test_wallboard_has_no_wcag_violation_on_any_panel(a11y_floor, kiosk):
    """The kiosk's own dark theme, whatever the screen's scheme; each panel shown in turn
    (the board rotates them; axe reads only what is shown)."""
    context = a11y_floor.context(None, viewport={"width": 1920, "height": 1080})
    try:
        page = context.new_page()
        page.goto(f"{a11y_floor.url}/wallboard/{kiosk}/")
        page.wait_for_selector("#agents .agent >> nth=39", state="attached", timeout=60_000)
        page.wait_for_selector("#wb-alerts .wb-alerts-total", state="attached", timeout=60_000)
        for panel in ("kpis", "agents", "queues", "alerts", "changed"):
            page.evaluate(SHOW_PANEL, panel)
            page.wait_for_timeout(300)
            assert_no_violations(page, f"wallboard-{panel}")
    finally:
        context.close()
