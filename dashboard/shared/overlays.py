"""What a higher room lays over a lower room's chart (today against its normal on the
campaign's and the QA page's charts): the room that makes the chart asks for it by kind,
`laid_over(kind, chart, ...)`, and the composition root registers, when the apps are
ready, what each kind gets (`lay_over`). A kind with nothing registered is drawn as it is."""

_overlays: dict = {}  # kind -> (chart, **what it is about) -> the chart with more laid over


def lay_over(kind: str, overlay):
    _overlays[kind] = overlay


def laid_over(kind: str, chart: dict, **about) -> dict:
    overlay = _overlays.get(kind)
    return chart if overlay is None else overlay(chart, **about)
