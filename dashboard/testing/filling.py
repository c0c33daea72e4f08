"""A dashboard whose reading of the service's history is held, and the texts the tests of
the filling notes compare: a page, and the live view's strip as a socket is sent it."""

import re
from html import unescape

from .live_view import LiveSocket
from .servers import start_dashboard

HELD = "filling today from the service: 0%"  # every history page held: nothing read yet
FILLING = "filling today from the service"
PAST_FILLING = "filling the past weeks from the service"  # the normal's notes meanwhile
HELD_TIMEOUT_S = 3  # the dashboard's REST timeout while the history is held


def held_history(sim_factory, zone: str):
    """The simulator with its past in `zone`, every page of its history held: each answers
    only after the dashboard gave up on it, until the test lets go (`history-delay`)."""
    sim = sim_factory(
        "--faults", "--seed", "5", "--agents", "30", "--zone", zone, "--history-days", "35",
    )  # fmt: skip
    sim.control("history-delay", seconds=3600, for_s=3600)
    return sim


def held_fill(sim_factory, tmp_path, zone: str, people: dict):
    """`held_history` and a dashboard on it, whose fill is held at its start. Each held
    request is given up on sooner: the recorder's first pass, which writes the day's first
    slots (the day's page), waits for its own read of the held call list."""
    sim = held_history(sim_factory, zone)
    env = {"TIME_ZONE": zone, "UPSTREAM_REST_TIMEOUT_S": str(HELD_TIMEOUT_S)}
    return sim, start_dashboard(sim, tmp_path, env, people=people)


def text(client, url) -> str:
    """A page's html, unescaped, its whitespace folded."""
    return unescape(" ".join(client.get(url).text.split()))


def strip(server, client) -> str:
    """The live view's KPI strip as a browser connecting now is sent it."""
    socket = LiveSocket(server, client)
    try:
        return unescape(" ".join(socket.receive().split()))
    finally:
        socket.close()


def send_summary(client, day: str) -> str:
    """A manager's press of "send to the chat" on the day page at `day` (a URL), through
    the real form: the page it lands on, unescaped."""
    csrf = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', client.get(day).text)
    answer = client.post(
        f"{day}send/",
        data={"csrfmiddlewaretoken": csrf.group(1)},
        headers={"Referer": day},
        follow_redirects=True,
    )
    return unescape(answer.text)
