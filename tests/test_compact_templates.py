"""Pushed fragments are written formatted and sent as one line (`{% compact %}`, in
dashboard/shared/templatetags/compact.py): the template's own line breaks and indentation
go, what is rendered into it stays."""

from django.template import Context, Template
from django.template.loader import get_template

from dashboard.testing.processes import ROOT

FRAGMENT = """{% load compact %}{% compact %}
<p class="x">
  <b>{{ name }}</b> says:
  <i>{{ note }}</i>
</p>
{% endcompact %}"""


def test_the_templates_line_breaks_go_and_the_data_stays():
    note = "first line\n  second line"
    html = Template(FRAGMENT).render(Context({"name": "Ann", "note": note}))
    assert html == f'<p class="x"><b>Ann</b> says:<i>{note}</i></p>'


def test_the_agent_tile_is_sent_on_one_line(db):
    agent = {
        "id": "ag-1",
        "name": "Ann",
        "team": "Sales",
        "state": "on_call",
        "label": "On call",
        "changed_by": "sam",
        "call": {"id": "c-1", "direction": "inbound", "campaign": "Spring"},
    }
    html = get_template("live/_agent.html").render({"agent": agent})
    assert "\n" not in html.strip()
    assert 'On call <span class="by">by <bdi>sam</bdi></span>' in html  # spaces kept
    assert "↙ In · <bdi>Spring</bdi> · <span" in html
    agent["monitors"] = [{"session": "s-1", "name": "Sam", "mode": "listen", "state": "dialing"}]
    html = get_template("live/_agent.html").render({"agent": agent})
    assert "Listened by <bdi>Sam</bdi> (listen, dialling)</span>" in html


def test_every_compact_template_closes_its_block():
    for path in sorted((ROOT / "templates").rglob("*.html")):
        source = path.read_text()
        assert source.count("{% compact %}") == source.count("{% endcompact %}"), path


def test_djlint_is_off_only_at_the_top_of_a_pushed_fragment():
    """A pushed fragment may be left as written as a whole (pyproject.toml says why); a part
    of a template that must be sent compact is written formatted inside `{% compact %}`, not
    kept as one unformatted line."""
    for path in sorted((ROOT / "templates").rglob("*.html")):
        source = path.read_text()
        at_top = source.startswith("{# djlint:off #}")
        assert source.count("djlint:off") == at_top and "djlint:on" not in source, path
