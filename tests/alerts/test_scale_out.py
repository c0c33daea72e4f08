"""Alerting in the production topology: Redis, PostgreSQL, two web workers and two
`manage.py bridge` processes. Only the leading bridge evaluates (one POST per transition,
never one per bridge); a rule saved on one worker reaches the engine; every worker's pages
show the tray; when the leader dies with an alert open, the bridge that takes over
continues that alert (it clears it) instead of raising it again."""

import re

import pytest

from dashboard.testing.alerts import Rules, alert_env, calm, posted, wait_for_post
from dashboard.testing.processes import free_port, wait_until
from dashboard.testing.receiver import Receiver
from dashboard.testing.servers import (
    ready,
    signed_in_client,
    start_topology,
)

RULE = "Paused (scale)"


@pytest.fixture
def receiver():
    r = Receiver()
    yield r
    r.close()


def test_one_leader_evaluates_and_a_new_leader_continues_the_open_alert(
    simulator, redis_url, postgres_url, receiver
):
    ports = [free_port(), free_port()]
    settings = alert_env(receiver)
    people = {"alice": "manager"}
    processes = start_topology(simulator, redis_url, postgres_url, ports, people=people, **settings)
    try:
        workers = [f"http://127.0.0.1:{port}" for port in ports]
        wait_until(lambda: all(ready(url) for url in workers), 30, "both workers ready")
        # Only the agent the test forces moves, and none is paused before the rule exists:
        # an agent the floor paused earlier would raise the team's alert first.
        calm(simulator)
        rules = Rules(client=signed_in_client(workers[1], "alice"))
        rules.delete_all()
        rules.add(RULE, "agent_paused", warn=2, alarm=3, hold_s=1, clear_s=1)

        agent = next(a for a in simulator.agents() if a["status"] == "available")
        team = f"team {agent['team']}"
        simulator.control("agent-status", agent_id=agent["agentId"], status="paused")
        raised = wait_for_post(receiver, RULE, "raised", subject=team)
        wait_for_post(receiver, RULE, "escalated", subject=team)
        for url in workers:  # the tray at page load, from the shared cache, on every worker
            page = signed_in_client(url, "bob").get("/qa/").text
            assert re.search(rf"Alarm: {re.escape(RULE)}: 1 of \d+ agents? in {team}", page)

        bridges = [processes["bridge-1"], processes["bridge-2"]]
        leader = next(b for b in bridges if b.said("leading: this bridge holds"))
        standby = next(b for b in bridges if b is not leader)
        leader.kill()
        simulator.control("agent-status", agent_id=agent["agentId"], status="available")
        cleared = wait_for_post(receiver, RULE, "cleared", subject=team, timeout=40)
        standby.wait_for_line("leading: this bridge holds", 10)  # its output is read as it comes
        assert cleared.payload["id"] == raised.payload["id"]  # continued, not raised again

        mine = [p for p in posted(receiver, RULE) if p.payload["subject"] == team]
        said = "\n".join(f"{p.payload['transition']}: {p.payload['text']}" for p in mine)
        logs = "\n".join(b.log()[-4000:] for b in bridges)
        assert [p.payload["transition"] for p in mine] == ["raised", "escalated", "cleared"], (
            f"{said}\n{logs}"
        )
        assert all(p.verifies() for p in posted(receiver, RULE))
    finally:
        for proc in processes.values():
            proc.stop()
