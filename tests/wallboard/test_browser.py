"""The wallboard in Chromium against a real dashboard process and simulated tenant: 300
agents on 1080p and 4K screens without overflow, rotation, revocation, the stale overlay,
reloading on a new deploy, no kiosk token in the server's log, a tile that changes
state moving to its group while the others keep their places, and the alerts' tiles
blinking with the page's tick, nothing animated by CSS."""

import contextlib
import json

import httpx
import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
from websockets.sync.client import connect

from dashboard.testing.browsers import screenshot, wait_for_js
from dashboard.testing.links import create_link, revoke_newest, tampered, token_of
from dashboard.testing.processes import free_port, wait_until
from dashboard.testing.servers import start_dashboard
from dashboard.testing.simulator import start_simulator

SCREENS = {"1080p": (1920, 1080), "4k": (3840, 2160)}
FILLED = {  # what shows that a panel has its content
    "kpis": "#kpis .kpi >> nth=13",
    "agents": "#agents .agent >> nth=299",
    "queues": "#queues-list .qrow",
    "campaigns": "#wb-campaigns .wb-campaign",
    "qa": "#wb-qa .wb-leaders li",
    "alerts": "#wb-alerts .wb-alerts-total",
}
OVERFLOW = """() => {
  const d = document.documentElement;
  const box = (e) => e.getBoundingClientRect();
  const outside = (r, o) => r.left < o.left - 1 || r.top < o.top - 1
    || r.right > o.right + 1 || r.bottom > o.bottom + 1;
  const view = {left: 0, top: 0, right: innerWidth, bottom: innerHeight};
  const bad = [];
  for (const panel of document.querySelectorAll('.wb-head, .wb-panel:not([hidden])')) {
    if (outside(box(panel), view)) bad.push(panel.className);
    for (const e of panel.querySelectorAll('*')) {
      const r = box(e);
      const what = e.id || e.className || e.tagName;
      const [sw, sh, cw, ch] = [e.scrollWidth, e.scrollHeight, e.clientWidth, e.clientHeight];
      if (r.width && r.height && outside(r, box(panel))) bad.push(`${what} outside`);
      const cut = sw > cw + 1 || sh > ch + 1;
      if (cut && getComputedStyle(e).textOverflow !== "ellipsis") {
        bad.push(`${what} cut: ${sw}x${sh} in ${cw}x${ch}`);
      }
    }
  }
  return {scroll: [d.scrollWidth, d.scrollHeight], client: [d.clientWidth, d.clientHeight], bad};
}"""

# The layout above fits the screen: what the grid's fitting (each second) comes to.
FITS = f"""([width, height]) => {{
  const layout = ({OVERFLOW})();
  const [sw, sh, cw, ch] = [...layout.scroll, ...layout.client];
  return !layout.bad.length && sw === width && cw === width && sh === height && ch === height;
}}"""


@pytest.fixture(scope="module")
def busy_wallboard_floor(tmp_path_factory):
    """300 agents, webhooks on (QA and coaching figures), a Manager signed in over HTTP."""
    port = free_port()
    sim = start_simulator(
        "--faults", "--agents", "300", "--seed", "9", "--speed", "3",
        "--webhook-url", f"http://127.0.0.1:{port}/webhooks/service/",
        "--webhook-secret", "e2e-webhook-secret",
    )  # fmt: skip
    server = start_dashboard(
        sim, tmp_path_factory.mktemp("wallboard"), port=port, people={"mia": "manager"}
    )
    try:
        manager = server.signed_in_client("mia")
        yield sim, server, manager
    finally:
        server.stop()
        sim.stop()


@pytest.mark.parametrize("screen", SCREENS)
def test_it_fits_300_agents_and_every_panel_on_the_screen(busy_wallboard_floor, browser, screen):
    sim, server, manager = busy_wallboard_floor
    width, height = SCREENS[screen]
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    errors = []
    page.on("console", lambda m: m.type == "error" and errors.append(m.text))
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        for key, filled in FILLED.items():
            page.goto(create_link(manager, f"TV {key} {screen}", [key]))
            page.wait_for_selector(filled, state="attached", timeout=60_000)
            wait_for_js(page, "document.getElementById('conn').dataset.state === 'live'")
            with contextlib.suppress(PlaywrightTimeoutError):  # fitted on one of its ticks
                page.wait_for_function(FITS, arg=[width, height], polling=250, timeout=10_000)
            screenshot(page, f"wallboard-{screen}-{key}")
            layout = page.evaluate(OVERFLOW)
            assert layout["scroll"] == layout["client"] == [width, height], (key, layout)
            assert layout["bad"] == [], (key, layout["bad"][:10])
            assert page.locator("#wb-stale").is_hidden()
            assert page.locator("#calls-list").is_hidden()  # calls stay off the shared screen
    finally:
        context.close()
    # no CSP refusal, no script error, no fragment without its place (htmx's oobErrorNoTarget)
    assert errors == [], errors[:5]


def test_it_rotates_its_panels_on_the_link_interval(busy_wallboard_floor, page):
    sim, server, manager = busy_wallboard_floor
    page.goto(create_link(manager, "Rotating TV", ["kpis", "alerts"], rotation_s=5))
    title = "document.getElementById('wb-panel-title').textContent"
    wait_for_js(page, f"{title} === 'Key figures'")
    clock = page.inner_text("#clock")
    assert page.locator(".wb-panel[data-panel=alerts]").is_hidden()
    wait_for_js(page, f"{title} === 'Open coaching alerts'", timeout=20_000)
    assert page.locator(".wb-panel[data-panel=kpis]").is_hidden()
    assert page.locator("#wb-alerts").is_visible()
    assert page.inner_text("#clock") != clock  # the clock ticks
    wait_for_js(page, f"{title} === 'Key figures'", timeout=20_000)
    assert page.locator(".wb-panel[data-panel=queues]").is_hidden()  # not on this link


def test_it_tells_the_screen_when_its_link_is_revoked(busy_wallboard_floor, page):
    sim, server, manager = busy_wallboard_floor
    url = create_link(manager, "Front desk TV", ["kpis"])
    page.goto(url)
    wait_for_js(page, "document.getElementById('conn').dataset.state === 'live'")
    revoke_newest(manager)
    # The socket closes within 5 s (tests/wallboard/test_socket.py); generous here, under load.
    page.wait_for_selector("#wallboard-closed[data-reason=revoked]", timeout=10_000)
    assert "This wallboard link was revoked" in page.inner_text("#wallboard-closed")
    assert page.locator("#wb-stale").is_hidden()
    screenshot(page, "wallboard-revoked")
    page.reload()
    assert "This wallboard link was revoked" in page.inner_text("body")


def test_it_never_writes_a_kiosk_token_to_the_log(busy_wallboard_floor):
    sim, server, manager = busy_wallboard_floor
    valid = token_of(create_link(manager, "Log TV", ["kpis"]))
    revoked = token_of(create_link(manager, "Gone TV", ["kpis"]))
    revoke_newest(manager)
    forged = tampered(valid)
    ws_base = server.url.replace("http", "ws")
    for token in (valid, revoked, forged):
        for path in (f"/wallboard/{token}/", f"/wallboard/{token}/nothing-here"):
            httpx.get(f"{server.url}{path}", timeout=10)
        with connect(f"{ws_base}/ws/wallboard/{token}/", origin=server.url) as ws:
            ws.recv(timeout=10)
    wait_until(lambda: server.process.said("Gone: /wallboard/[redacted]/"), 10, server.log)
    log = server.log()
    assert "Not Found: /wallboard/[redacted]/" in log  # the 4xx answers were logged...
    assert "Gone: /wallboard/[redacted]/" in log
    for token in (valid, revoked, forged):
        assert token not in log  # ...without their tokens
        assert token.rsplit(":", 1)[1] not in log


# One agent pushed in a new state, as the server renders its tile, applied by the page's
# own scripts (`live:frame`): which tiles changed state, which moved, and whether the tiles
# read top to bottom and left to right are grouped by state (live-config's order).
NEW_STATE = """() => {
  const order = Object.keys(JSON.parse(document.getElementById('live-config').textContent).states);
  const tiles = [...document.querySelectorAll('#agents .agent')];
  const seen = () => new Map(tiles.map((t) => [t.id, [t.dataset.state, t.style.transform]]));
  const before = seen();
  const tile = tiles[0];
  const shown = new Set(tiles.map((t) => t.dataset.state));
  const state = order.find((s) => s !== tile.dataset.state && shown.has(s)); // a group there
  const fresh = tile.cloneNode(true);
  fresh.removeAttribute('style');
  fresh.removeAttribute('data-level');
  fresh.dataset.state = state;
  fresh.dataset.seq = String(Number(tile.dataset.seq) + 1000);
  document.dispatchEvent(new CustomEvent('live:frame', {detail: {html: fresh.outerHTML}}));
  const after = seen();
  const changed = tiles.filter((t) => before.get(t.id)[0] !== after.get(t.id)[0]).map((t) => t.id);
  const moved = tiles.filter((t) => before.get(t.id)[1] !== after.get(t.id)[1]).map((t) => t.id);
  const at = tiles.map((t) => {
    const [x, y] = t.style.transform.match(/-?[\\d.]+/g).map(Number);
    return [y, x, order.indexOf(t.dataset.state)];
  }).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  return {id: tile.id, state, changed, moved, runs: new Set(at.map((t) => t[2])).size,
          grouped: at.every((t, i) => i === 0 || at[i - 1][2] <= t[2])};
}"""


def test_a_tile_that_changes_state_moves_to_its_group_and_few_others_move(
    busy_wallboard_floor, page
):
    """Sorted by state then name, one change shifted every tile between its two places
    (each move a repaint on a slow TV): now the others keep theirs, but a few at the
    groups' edges."""
    sim, server, manager = busy_wallboard_floor
    page.set_viewport_size({"width": 3840, "height": 2160})
    page.goto(create_link(manager, "Steady TV", ["agents"]))
    page.wait_for_selector(FILLED["agents"], state="attached", timeout=60_000)
    wait_for_js(page, "document.getElementById('conn').dataset.state === 'live'")
    sim.control("pause")  # only this test's push changes a state
    try:
        page.wait_for_timeout(1500)  # what was on its way is applied
        got = page.evaluate(NEW_STATE)
    finally:
        sim.control("resume")
    assert got["changed"] == [got["id"]], got
    assert got["grouped"], got  # in its new group at once (its place may already be there)
    # the changed tiles, and at most one a group at the edges between its two places
    assert len(got["moved"]) <= len(got["changed"]) + got["runs"], got


# The banner as the server pushes it (alerts/_board.html), applied by the page's own scripts
BANNER = """(ids) => document.dispatchEvent(new CustomEvent("live:frame", {detail: {html:
  `<div id="wb-alert-banner" class="wb-alert-banner" data-level="alarm" role="alert"
    data-flash="${ids.map((id) => "#" + id).join(", ")}">Team A: 2 agents paused</div>`}}))"""
# The blink's half and the tiles' outlines, read in one task
FLASHED = """(ids) => {
  const tiles = ids.map((id) => document.getElementById(id));
  return {blink: document.body.dataset.blink, animations: document.getAnimations().length,
          flashed: tiles.every((t) => t.matches(".alert-flash[data-alert-level=alarm]")),
          outlines: tiles.map((t) => getComputedStyle(t).outlineColor)};
}"""
TRANSPARENT = "rgba(0, 0, 0, 0)"


def test_the_alerts_tiles_blink_with_the_tick_and_nothing_animates(busy_wallboard_floor, page):
    """A CSS animation made a slow TV lay out its layers and commit at every frame: the
    alerts' tiles and banner blink with the page's one-second tick instead."""
    sim, server, manager = busy_wallboard_floor
    page.goto(create_link(manager, "Blinking TV", ["agents"]))
    page.wait_for_selector(FILLED["agents"], state="attached", timeout=60_000)
    wait_for_js(page, "document.getElementById('conn').dataset.state === 'live'")
    ids = page.evaluate(
        "[...document.querySelectorAll('#agents .agent')].slice(0, 2).map((t) => t.id)"
    )
    halves = {}
    for _ in range(12):  # until both halves of the blink are seen, a tick apart
        got = page.evaluate(FLASHED, ids)
        if not got["flashed"]:  # the banner is not this test's (yet, or the floor's since)
            page.evaluate(BANNER, ids)
            continue
        assert got["animations"] == 0, got
        halves.setdefault(got["blink"], set()).update(got["outlines"])
        if {"on", "off"} <= halves.keys():
            break
        wait_for_js(page, f"document.body.dataset.blink !== {json.dumps(got['blink'])}")
    assert halves["off"] == {TRANSPARENT}, halves
    assert TRANSPARENT not in halves["on"], halves
