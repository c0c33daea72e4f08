"""axe-core (vendored from the npm registry's package, with its licence, in vendor/) run in
Chromium over a page: every WCAG 2.1 A and AA rule.

The pages run under a strict CSP with no inline scripts, so axe is not added as a <script>:
Playwright's `evaluate` runs its source through the DevTools protocol, which the CSP does
not govern.
"""

from pathlib import Path

from .browsers import screenshot

AXE_VERSION = "4.14.1"
AXE = Path(__file__).parent / "vendor" / f"axe-core-{AXE_VERSION}.min.js"
LICENCE = AXE.with_name(f"axe-core-{AXE_VERSION}.LICENSE")
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]

RUN = """async (tags) => {
  const result = await axe.run(document, {runOnly: {type: "tag", values: tags}});
  return result.violations.map((v) => ({
    id: v.id,
    impact: v.impact,
    help: v.help,
    nodes: v.nodes.length,
    targets: v.nodes.slice(0, 3).map((n) => n.target.join(" ")),
    summary: (v.nodes[0] && v.nodes[0].failureSummary || "").split("\\n").slice(0, 3).join(" "),
  }));
}"""


def violations(page) -> list[dict]:
    """Every WCAG 2.1 A/AA violation on the page as it is now: id, impact, how many nodes,
    the first targets' selectors and what is wrong with the first."""
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.evaluate(AXE.read_text())
    return page.evaluate(RUN, TAGS)


def violations_by_scheme(page, schemes=("light", "dark")) -> dict[str, list[dict]]:
    """`violations` in each system colour scheme, switched on the loaded page: the pages
    follow the scheme through CSS media queries alone (the charts read the ink when they
    draw, but axe does not read canvases), so a second load would show the same page."""
    found = {}
    for scheme in schemes:
        page.emulate_media(color_scheme=scheme)
        query = f"() => matchMedia('(prefers-color-scheme: {scheme})').matches"
        assert page.evaluate(query), f"the page is not in the {scheme} scheme"
        found[scheme] = violations(page)
    return found


def assert_no_violations(page, name, schemes=("light", "dark")):
    """No violation on the page in any of `schemes`; else each failing scheme's violations
    and a screenshot of the page in it (test-artifacts/a11y-NAME-SCHEME.png)."""
    failing = {scheme: v for scheme, v in violations_by_scheme(page, schemes).items() if v}
    for scheme in failing:
        page.emulate_media(color_scheme=scheme)
        screenshot(page, f"a11y-{name}-{scheme}")
    assert not failing, "\n".join(
        f"{name} ({scheme}) has WCAG violations:\n{report(v)}" for scheme, v in failing.items()
    )


def report(found: list[dict]) -> str:
    """The violations as lines a failing test shows: what to fix and where."""
    return "\n".join(
        f"  {v['id']} ({v['impact']}, {v['nodes']} nodes): {v['help']}\n"
        f"    at {', '.join(v['targets'])}\n    {v['summary']}"
        for v in found
    )
