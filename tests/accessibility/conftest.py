"""One busy floor for the module: the simulator's 40 agents with webhooks on (QA, coaching
and outbound figures arrive), limits low enough that tiles turn amber and red, two
agents held paused (the simulator's clock runs ahead of the wall at speed 3, so its own
states start "in the future" and may never look long), a few coaching alerts asked of the
simulator (its own come after 8% of calls, too seldom to wait for), a kiosk link, a
Supervisor who runs two of its four teams, and a session per role."""

import re

import pytest

from dashboard.testing.browsers import session_cookies
from dashboard.testing.links import create_link, token_of
from dashboard.testing.processes import free_port, wait_until
from dashboard.testing.servers import start_dashboard
from dashboard.testing.simulator import start_simulator

COACHING_ALERTS = 3
ROLES = {"supervisor": "sam", "manager": "mia", "wallboard": "wes"}
DARK = "dora"  # a Manager who chose the dark theme, whatever her screen's setting
TEAMS = ("Sales North", "Support")
MY_FLOOR = "tess"  # a Supervisor who runs TEAMS (two of the simulator's four teams)
LOW_LIMITS = (
    "from dashboard.live.models import Thresholds; "
    "Thresholds.objects.filter(pk=Thresholds.current().pk).update("
    "ringing_warn_s=2, ringing_alarm_s=4, wrap_up_warn_s=2, wrap_up_alarm_s=6,"
    " pause_warn_s=2, pause_alarm_s=6)"
)


class Floor:
    def __init__(self, sim, server, browser):
        self.sim, self.server, self.browser = sim, server, browser
        self.my_teams = TEAMS  # MY_FLOOR's
        self.states = {}

    @property
    def url(self):
        return self.server.url

    def context(self, role=None, color_scheme="light", **options):
        """A browser context signed in as `role` (None: signed out; or a username), in the
        system colour scheme `color_scheme`. The session is signed in over HTTP once per
        role, not in Chromium (the form's own pages are checked as pages)."""
        if role and role not in self.states:
            self.states[role] = session_cookies(self.server, ROLES.get(role, role))
        context = self.browser.new_context(
            viewport=options.pop("viewport", {"width": 1600, "height": 1000}),
            color_scheme=color_scheme,
            **options,
        )
        if role:
            context.add_cookies(self.states[role])
        return context


@pytest.fixture(scope="module")
def a11y_floor(tmp_path_factory, browser):
    port = free_port()
    sim = start_simulator(
        "--faults", "--seed", "7", "--speed", "3",
        "--webhook-url", f"http://127.0.0.1:{port}/webhooks/service/",
        "--webhook-secret", "e2e-webhook-secret",
    )  # fmt: skip
    server = start_dashboard(sim, tmp_path_factory.mktemp("a11y"), port=port)
    try:
        for _ in range(COACHING_ALERTS):
            sim.control("webhook", event="coaching_alert")
        for team in TEAMS:  # one in each of MY_FLOOR's teams: amber there too
            agent = [a for a in sim.agents() if a["team"] == team][-1]
            sim.control("agent-status", agent_id=agent["agentId"], status="paused")
        people = {name: role for role, name in ROLES.items()}
        server.add_users(
            people | {DARK: "manager", MY_FLOOR: "supervisor"},
            then=f"{LOW_LIMITS}\n"
            "from django.contrib.auth.models import User\n"
            "from dashboard.accounts.models import Preferences\n"
            f"Preferences.objects.create(user=User.objects.get(username='{DARK}'), theme='dark')\n"
            f"Preferences.objects.create(user=User.objects.get(username='{MY_FLOOR}'),"
            f" teams={list(TEAMS)!r})",
        )
        yield Floor(sim, server, browser)
    finally:
        server.stop()
        sim.stop()


@pytest.fixture(scope="module")
def kiosk(a11y_floor):
    """A kiosk link with every panel; its token."""
    manager = a11y_floor.server.signed_in_client(ROLES["manager"])
    try:
        url = create_link(
            manager, "Accessibility TV", ["kpis", "agents", "queues", "alerts", "changed"]
        )
    finally:
        manager.close()
    return token_of(url)


@pytest.fixture(scope="module")
def ids(a11y_floor):
    """A campaign's, an agent's and a call's id, as the pages link to them (the live view is
    served with the calls it knows: no browser page is loaded for them)."""
    client = a11y_floor.server.signed_in_client(ROLES["manager"])
    try:
        campaigns = re.findall(r'href="/campaigns/([^"/]+)/"', client.get("/campaigns/").text)
        calls = wait_until(
            lambda: re.findall(r'href="/calls/([^"/]+)/"', client.get("/").text),
            30,
            "a call on the live view",
            interval=0.5,
        )
    finally:
        client.close()
    agent = a11y_floor.sim.agents()[0]["agentId"]
    return {"campaign": campaigns[0], "agent": agent, "call": calls[0]}
