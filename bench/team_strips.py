"""What "my floor" adds to a push: the KPI strip rendered for each team set in use.

`python -m bench.team_strips` builds a floor of 1,000 agents in 20 teams with 400 calls,
then times the feed's KPI render (the whole floor's strip, then with 10 team sets of one to
three teams each) and the frame each audience is sent, in CPU time of the thread (load
moves it less than the clock). Prints milliseconds per render:
the feed renders the strips at most every 0.25 s (view.KPI_EVERY_S). docs/accessibility.md
"My floor" records a run.
"""

import os
import random
import statistics
import time
from datetime import UTC, datetime, timedelta

import django

AGENTS, TEAMS, CALLS, SETS, RUNS = 1000, 20, 400, 10, 200


def floor():
    from dashboard.upstream import contract as c

    rng = random.Random(26)
    now = datetime.now(UTC)
    states = ["available", "on_call", "wrap_up", "paused", "ringing", "offline"]
    agents, calls = [], []
    for n in range(AGENTS):
        call_id = f"c{n}" if n < CALLS else None
        status = "on_call" if call_id else rng.choice(states)
        since = now - timedelta(seconds=rng.randint(0, 600))
        agents.append(c.Agent(f"a{n}", f"Agent {n}", f"Team {n % TEAMS}", status, since, call_id))
        if call_id:
            calls.append(
                c.Call(call_id, f"a{n}", "camp", "inbound", "in_progress", n % 7 == 0, since)
            )
    sets = {
        tuple(sorted({f"Team {rng.randrange(TEAMS)}" for _ in range(rng.randint(1, 3))}))
        for _ in range(SETS * 3)
    }
    return agents, calls, sorted(sets)[:SETS]


def c_event(agent):
    """`agent` gone paused, as the service says it."""
    from dataclasses import replace

    from dashboard.upstream import contract as c

    changed = replace(agent, status="paused", since=datetime.now(UTC), call_id=None)
    return c.Event("agent.status", "org", 1, datetime.now(UTC), c.AgentChanged(changed))


def timed(work) -> list[float]:
    out = []
    for _ in range(RUNS):
        start = time.thread_time()
        work()
        out.append((time.thread_time() - start) * 1000)
    return out


def report(what, ms):
    ms = sorted(ms)
    print(
        f"{what:<52} median {statistics.median(ms):6.2f} ms  p95 {ms[int(0.95 * len(ms))]:6.2f} ms"
    )


def main():
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    django.setup()
    from dashboard.live.audiences import LIVE_VIEW, Shows
    from dashboard.live.render import Renderer
    from dashboard.live.state import Changes, LiveState

    agents, calls, sets = floor()
    state = LiveState(UTC)
    state.load_snapshot(agents, calls, datetime.now(UTC))
    render, figures, now = Renderer(), {"service_level_s": 20}, datetime.now(UTC)
    print(f"{AGENTS} agents in {TEAMS} teams, {CALLS} calls, {len(sets)} team sets: {sets}")
    floor_only = timed(lambda: render.kpi_strips(state, figures, now, set()))
    with_sets = timed(lambda: render.kpi_strips(state, figures, now, set(sets)))
    report("KPI strips: the whole floor's only", floor_only)
    report(f"KPI strips: the whole floor's and {len(sets)} team sets'", with_sets)
    report("  of which the per-team figures (a pass over the calls)", timed(state.team_figures))
    extra = statistics.median(with_sets) - statistics.median(floor_only)
    print(f"per team set: {extra / len(sets):.2f} ms more per KPI render (at most 4 a second)")

    from dashboard.main.bridge_task import live_feed

    feed = live_feed(LiveState(UTC), tick=0.1, heartbeat=60)
    feed.snapshot(agents, calls)
    feed.view.team_sets = set(sets)
    parts = feed.view.render_changes(Changes(full=True))
    audiences = [LIVE_VIEW, *(Shows(LIVE_VIEW.parts, t) for t in sets)]
    report(
        f"framing a full view for {len(audiences)} audiences",
        timed(lambda: [a.compose(parts) for a in audiences]),
    )
    time.sleep(0.3)  # past view.KPI_EVERY_S: the next push carries the strips
    feed.event(c_event(agents[5]))
    parts = feed.view.render_changes(Changes(agents={agents[5].agent_id}, kpis=True))
    report(
        f"framing a push (one tile, the strips) for {len(audiences)} audiences",
        timed(lambda: [a.compose(parts) for a in audiences]),
    )
    strip = len(parts["kpis"].encode())
    print(f"a KPI strip is {strip} bytes; a team set's is sent only to its own sockets")


if __name__ == "__main__":
    main()
