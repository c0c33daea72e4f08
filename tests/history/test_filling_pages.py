"""While the service's history is read, the pages that read what it fills say so with its
progress instead of a partial figure: an agent's page and the QA page while today is read,
the live strip's comparisons with last week while the past weeks are (today whole by then);
each shows its figures once its days are read."""

import re

import pytest

from dashboard.testing import filling
from dashboard.testing.filling import FILLING, HELD, strip, text
from dashboard.testing.live_view import kpi_figures
from dashboard.testing.processes import wait_until
from dashboard.testing.zones import late_morning

PAST_HELD = "last week: filling from the service: 0%"
PAST_FILLING = "last week: filling from the service"
DAYS = 2 * 86400  # older than this: the past weeks' pages, not today's


ZONE = late_morning()


@pytest.fixture
def held_fill(sim_factory, tmp_path):
    sim, server = filling.held_fill(sim_factory, tmp_path, ZONE, {"bob": "supervisor"})
    yield sim, server, server.signed_in_client("bob")
    server.stop()


def comparisons(shown: str) -> list[str]:
    """The compared tiles' lines under their figures."""
    return re.findall(r'<div class="vs">([^<]*)</div>', shown)


def test_pages_say_what_is_filling_until_its_days_are_read(held_fill):
    sim, server, client = held_fill
    said = f'Today so far is partial, <span class="filling">{HELD}</span>:'
    wait_until(lambda: HELD in strip(server, client), 60, lambda: strip(server, client)[:3000])
    agent_id = wait_until(
        lambda: re.search(r'href="/agents/([^/"]+)/"', strip(server, client)), 60, "an agent"
    ).group(1)
    agent = f"{server.url}/agents/{agent_id}/"
    # Today held: the agent's day and the QA page's today say so (as the web processes
    # read it, a moment after the strip), no partial figure.
    page = wait_until(lambda: (got := text(client, agent)) and FILLING in got and got, 30)
    assert f"{said} the agent's figures follow once it is read." in page, page[-4000:]
    assert f"{said} the states follow once it is read." in page
    assert '<ul class="legend">' not in page and "No state changes recorded today" not in page
    figures = page.split('id="figures-title"')[1].split("</section>")[0]
    assert figures.count(f'<span class="filling">{HELD}</span>') == 4  # the note, each value
    assert not re.search(r'class="value">\s*[\d–]', figures), figures
    qa_line = page.split('id="qa-title"')[1].split("</h2>")[0].split('<span class="muted">')[1]
    assert HELD in qa_line and "average" not in qa_line and "none yet" not in qa_line
    qa = text(client, f"{server.url}/qa/")
    assert f"{said} its QA average and pass rate follow once it is read." in qa, qa[-4000:]
    assert re.search(r'id="qa-today">Today: \d+ scorecards', qa) is None
    assert f'"note": "Partial: {HELD}."' in qa
    # The comparisons with last week: not read either.
    wait_until(
        lambda: (got := comparisons(strip(server, client))) and all(x == PAST_HELD for x in got),
        30,
        lambda: comparisons(strip(server, client)),
    )

    # Today let go, the past weeks still held: today is whole, its comparisons say what
    # they wait for.
    sim.control("history-delay", seconds=3600, for_s=3600, older_than_s=DAYS)
    shown = wait_until(
        lambda: (got := strip(server, client)) and FILLING not in got and got,
        180,
        lambda: strip(server, client)[:3000],
    )
    assert kpi_figures(shown)["Completed"].isdigit(), shown
    lines = comparisons(shown)
    assert lines and all(line.startswith(PAST_FILLING) for line in lines), lines
    page = wait_until(lambda: (got := text(client, agent)) and FILLING not in got and got, 30)
    assert '<ul class="legend">' in page or "No state changes recorded today" in page
    qa = text(client, f"{server.url}/qa/")
    assert FILLING not in qa and re.search(r'id="qa-today">Today: \d+ scorecards', qa), qa

    # The past weeks let go: the comparisons are made.
    sim.control("history-delay", seconds=0, for_s=0)
    lines = wait_until(
        lambda: (
            (got := comparisons(strip(server, client)))
            and not any(PAST_FILLING in x for x in got)
            and got
        ),
        240,
        lambda: comparisons(strip(server, client)),
    )
    assert any(" vs last " in x for x in lines), lines
