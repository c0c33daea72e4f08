"""A 4K wallboard's tile names in Chromium against a real dashboard and simulated tenant:
a name wider than its column is clipped and ends in an ellipsis; the others are not
clipped at all (a clip per tile costs every painted frame), and none of them overflows."""

import pytest

from dashboard.testing.browsers import wait_for_js
from dashboard.testing.links import create_link
from dashboard.testing.servers import start_dashboard
from dashboard.testing.simulator import start_simulator

LONG = "Maximiliana Alexandrovna Konstantinopoulou-Vanderbilt de la Fontaine"

# The page's names: how many are clipped, and any that overflows its column unclipped
NAMES = """() => {
  const out = {clipped: [], overflowing: [], tiles: 0};
  for (const tile of document.querySelectorAll("#agents .agent")) {
    const name = tile.querySelector(".name");
    const style = getComputedStyle(name);
    out.tiles += 1;
    if (style.overflowX === "hidden") out.clipped.push(tile.id);
    else if (name.scrollWidth > name.clientWidth + 1) out.overflowing.push(tile.id);
    if (tile.scrollWidth > tile.clientWidth + 1) out.overflowing.push(tile.id);
  }
  return out;
}"""
# A tile pushed again with another name, applied by the page's own scripts (live:frame)
RENAME = """([id, name]) => {
  const tile = document.getElementById(id).cloneNode(true);
  tile.removeAttribute("style");
  tile.dataset.name = name;
  tile.dataset.seq = String(Number(tile.dataset.seq || 0) + 1);
  tile.querySelector(".name bdi").textContent = name;
  tile.querySelector(".name").title = name;
  document.dispatchEvent(new CustomEvent("live:frame", {detail: {html: tile.outerHTML}}));
}"""
ONE = """(id) => {
  const name = document.getElementById(id).querySelector(".name");
  const style = getComputedStyle(name);
  return {overflow: style.overflowX, ellipsis: style.textOverflow,
          cut: name.scrollWidth > name.clientWidth, text: name.textContent};
}"""


@pytest.fixture(scope="module")
def tv_floor(tmp_path_factory):
    """300 agents, a Manager signed in over HTTP to make the kiosk link."""
    sim = start_simulator("--faults", "--agents", "300", "--seed", "9")  # pause: --faults
    server = start_dashboard(sim, tmp_path_factory.mktemp("names"), people={"mia": "manager"})
    try:
        yield sim, server, server.signed_in_client("mia")
    finally:
        server.stop()
        sim.stop()


def test_only_a_name_wider_than_its_column_is_clipped(tv_floor, browser):
    sim, server, manager = tv_floor
    context = browser.new_context(viewport={"width": 3840, "height": 2160})
    page = context.new_page()
    try:
        page.goto(create_link(manager, "Names TV", ["agents"]))
        page.wait_for_selector("#agents .agent >> nth=299", state="attached", timeout=60_000)
        wait_for_js(page, "document.getElementById('conn').dataset.state === 'live'")
        sim.control("pause")  # only this test's pushes change a tile
        try:
            page.wait_for_timeout(1500)  # what was on its way is applied
            before = page.evaluate(NAMES)
            assert before["tiles"] == 300
            assert before["overflowing"] == [], before["overflowing"][:5]
            assert len(before["clipped"]) < before["tiles"], before  # short names: no clip
            tile = page.evaluate(
                """(clipped) => [...document.querySelectorAll("#agents .agent")]
                   .find((t) => !clipped.includes(t.id)).id""",
                before["clipped"],
            )
            was = page.evaluate(ONE, tile)
            assert was["overflow"] == "visible" and not was["cut"], was

            page.evaluate(RENAME, [tile, LONG])
            wait_for_js(page, f"document.getElementById({tile!r}).dataset.name === {LONG!r}")
            now = page.evaluate(ONE, tile)
            assert now == {"overflow": "hidden", "ellipsis": "ellipsis", "cut": True, "text": LONG}
            assert page.evaluate(NAMES)["overflowing"] == []

            page.evaluate(RENAME, [tile, was["text"]])  # a short name again: no clip
            wait_for_js(page, f"document.getElementById({tile!r}).dataset.name !== {LONG!r}")
            assert page.evaluate(ONE, tile) == was
        finally:
            sim.control("resume")
    finally:
        context.close()
