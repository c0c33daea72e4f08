"""A floor's worth of agents, as people and chat tools meet it: agents crossing a limit
together are one alert for their team and one chat post; agents joining and leaving it
update its page, not the chat; what falls due together is one digest, at most one POST per
ALERT_WEBHOOK_MIN_INTERVAL_S; a receiver answering 429 with Retry-After gets the same POST
again after that long, and nothing is lost. Real simulator (standing still: only the
agents the test forces move), real dashboard process, a local receiver."""

import re

import pytest

from dashboard.testing.alerts import (
    Rules,
    alert_env,
    calm,
    first_posts,
    posted,
    wait_for_post,
)
from dashboard.testing.processes import wait_until
from dashboard.testing.receiver import Receiver
from dashboard.testing.servers import start_dashboard

RULE = "Long break (test)"
INTERVAL_S = 2  # the product waits 10 s between POSTs


@pytest.fixture(scope="module")
def grouping_floor(tmp_path_factory):
    from dashboard.testing.simulator import start_simulator

    sim = start_simulator("--faults", "--seed", "11")
    receiver = Receiver()
    env = alert_env(receiver, min_interval_s=INTERVAL_S)
    server = start_dashboard(
        sim, tmp_path_factory.mktemp("grouping"), env, people={"sue": "supervisor"}
    )
    rules = Rules(server)
    rules.delete_all()
    calm(sim)
    rules.add(RULE, "agent_paused", warn=1, hold_s=0, clear_s=1)
    supervisor = server.signed_in_client("sue")
    yield sim, server, receiver, rules, supervisor
    supervisor.close()
    server.stop()
    receiver.close()
    sim.stop()


def free_agents(sim, team, n):
    agents = [a for a in sim.agents() if a["status"] == "available" and a["team"] == team]
    assert len(agents) >= n, f"{len(agents)} free in {team}"
    return agents[:n]


def teams(sim):
    return sorted({a["team"] for a in sim.agents()})


def set_status(sim, agents, status):
    for agent in agents:
        sim.control("agent-status", agent_id=agent["agentId"], status=status)


def listed(client, alert_id) -> list[str]:
    """The agents the group's page lists."""
    page = client.get(f"/alerts/{alert_id}/").text
    return re.findall(r'<li data-agent="([^"]+)">', page)


def of_alert(receiver, alert_id):
    return [p for p in first_posts(receiver, RULE) if p.payload["id"] == alert_id]


def test_agents_crossing_at_once_make_one_group_alert_and_one_chat_post(grouping_floor):
    sim, server, receiver, _, supervisor = grouping_floor
    team = teams(sim)[0]
    agents = free_agents(sim, team, 6)
    before = len(receiver.received)
    set_status(sim, agents, "paused")
    raised = wait_for_post(receiver, RULE, "raised", subject=f"team {team}")
    alert_id = raised.payload["id"]
    ids = sorted(a["agentId"] for a in agents)
    # Those crossing after the raise join it (the agents were paused one request at a time).
    wait_until(lambda: sorted(listed(supervisor, alert_id)) == ids, 30, "all six listed")
    assert set(raised.payload["members"]) <= set(ids)
    assert raised.payload["count"] == len(raised.payload["members"]) >= 1
    set_status(sim, agents, "available")
    wait_for_post(receiver, RULE, "cleared", subject=f"team {team}")
    about = of_alert(receiver, alert_id)
    assert [p.payload["transition"] for p in about] == ["raised", "cleared"]
    raising_posts = {p.post for p in posted(receiver, RULE) if p.payload["id"] == alert_id}
    assert len(raising_posts) == 2  # one POST for six agents crossing, one for the clear
    others = [
        p
        for p in first_posts(receiver, RULE)
        if p.payload["subject"] != f"team {team}" and p.post >= before
    ]
    assert others == []  # the floor stood still: nothing else crossed


def test_members_joining_and_leaving_update_the_group_without_new_posts(grouping_floor):
    sim, server, receiver, _, supervisor = grouping_floor
    team = teams(sim)[1]
    first, *more = free_agents(sim, team, 4)
    set_status(sim, [first], "paused")
    raised = wait_for_post(receiver, RULE, "raised", subject=f"team {team}")
    alert_id = raised.payload["id"]
    assert raised.payload["members"] == [first["agentId"]]
    set_status(sim, more, "paused")
    everyone = sorted(a["agentId"] for a in [first, *more])
    wait_until(lambda: sorted(listed(supervisor, alert_id)) == everyone, 30, "four listed")
    set_status(sim, more[:2], "available")
    staying = sorted(a["agentId"] for a in [first, more[2]])
    wait_until(lambda: sorted(listed(supervisor, alert_id)) == staying, 30, "two listed")
    page = supervisor.get(f"/alerts/{alert_id}/").text
    assert re.search(rf"2 of \d+ agents in team {re.escape(team)}", page)
    set_status(sim, [first, more[2]], "available")
    wait_for_post(receiver, RULE, "cleared", subject=f"team {team}")
    # Posts go in order: one about a member joining or leaving would have come before this.
    assert [p.payload["transition"] for p in of_alert(receiver, alert_id)] == [
        "raised",
        "cleared",
    ]


def test_transitions_falling_due_together_are_one_digest_and_posts_are_paced(grouping_floor):
    sim, server, receiver, rules, _ = grouping_floor
    three = teams(sim)[:3]
    agents = [free_agents(sim, team, 1)[0] for team in three]
    before = len(receiver.received)
    set_status(sim, agents, "paused")
    for team in three:
        wait_for_post(receiver, RULE, "raised", subject=f"team {team}")
    set_status(sim, agents, "available")
    for team in three:
        wait_until(
            lambda team=team: any(
                p.payload["transition"] == "cleared" and p.post >= before
                for p in posted(receiver, RULE)
                if p.payload["subject"] == f"team {team}"
            ),
            30,
            f"the cleared of team {team}",
        )
    new = [p for p in posted(receiver, RULE) if p.post >= before]
    posts = sorted({p.post for p in new})
    assert len(new) == 6 and len(posts) < 6  # three raised, three cleared, folded
    digest = next(p for p in new if len({q.payload["id"] for q in new if q.post == p.post}) > 1)
    assert digest.verifies()
    whole = receiver.received[digest.post][1].decode()
    assert '"transition":"digest"' in whole and "alert changes: " in whole
    times = receiver.received_at[before:]
    assert all(b - a >= INTERVAL_S - 0.2 for a, b in zip(times, times[1:], strict=False))
    page = rules.client.get("/alerts/deliveries/").text
    assert re.search(r"\d transitions folded into one post", page)


def test_a_receiver_answering_429_gets_the_post_again_after_its_retry_after(grouping_floor):
    sim, server, receiver, rules, _ = grouping_floor
    team = teams(sim)[3]
    [agent] = free_agents(sim, team, 1)
    before = len(receiver.received)
    receiver.statuses = [(429, {"Retry-After": "2"})]
    set_status(sim, [agent], "paused")
    wait_until(lambda: len(receiver.received) >= before + 2, 30, "the POST and its retry")
    (first_at, second_at), (first, second) = (
        receiver.received_at[before : before + 2],
        receiver.received[before : before + 2],
    )
    assert first[1] == second[1]  # the same body again, signed the same
    assert second_at - first_at >= 2 - 0.1  # after the receiver's Retry-After
    raised = wait_for_post(receiver, RULE, "raised", subject=f"team {team}")
    assert raised.payload["members"] == [agent["agentId"]]
    set_status(sim, [agent], "available")
    cleared = wait_for_post(receiver, RULE, "cleared", subject=f"team {team}")
    assert cleared.payload["id"] == raised.payload["id"]  # nothing lost, nothing doubled
    assert [p.payload["transition"] for p in of_alert(receiver, raised.payload["id"])] == [
        "raised",
        "cleared",
    ]
    page = rules.client.get("/alerts/deliveries/").text
    assert "answered 429; tried again after 2 s (Retry-After)" in page
