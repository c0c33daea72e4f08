"""What publishing the floor's changes costs the web process, step by step, in CPU.

`python -m bench.publish_cost` builds a floor (10,000 agents in 100 teams by default, in
the adapter's own types) in a live feed wired as the bridge wires it, registers a team set
per team (the floor10k bench's 900 team pages) and plays the simulator's load mode: each event
moves a random agent on in its cycle (available, ringing, on call, wrap-up), 1,000 a
second, 50 to a push (the feed's 50 ms tick). Each push is published as the feed does
(rendered, the whole view written to the cache, the group message sent) and framed and
compressed once per audience as the fan-out does (the whole floor and each team set).

The clock the feed paces itself by (the KPI strips, the team sets' strips) is the
simulated one and a strip's cost is its CPU time, so the figures do not depend on the
machine's load: CPU seconds per 1,000 events, in total (`time.process_time`, every
thread) and for each step (the CPU time of the thread that ran it, around the functions
named below). docs/performance.md "Publishing a change at 10,000 agents" records runs.
"""

import argparse
import asyncio
import functools
import inspect
import os
import random
import time
import types
from collections import defaultdict
from dataclasses import replace
from datetime import UTC, datetime

import django

CYCLE = {
    "available": "ringing",
    "ringing": "on_call",
    "on_call": "wrap_up",
    "wrap_up": "available",
    "paused": "available",
    "offline": "available",
}


class Clock:
    """The feed's `time` module with a simulated monotonic clock, and CPU time for what it
    times: the pacing of an idle machine whatever the load."""

    def __init__(self):
        self.at = 1000.0

    def module(self):
        return types.SimpleNamespace(monotonic=lambda: self.at, thread_time=time.thread_time)


class Steps:
    """CPU time spent inside each wrapped function (outermost calls only), by the thread
    that called it."""

    def __init__(self):
        self.cpu, self.calls = defaultdict(float), defaultdict(int)
        self.depth = 0

    def wrap(self, owner, name: str, label: str):
        original = getattr(owner, name, None)
        if original is None:
            return
        steps = self

        @functools.wraps(original)
        def timed(*args, **kwargs):
            if steps.depth:
                return original(*args, **kwargs)
            steps.depth += 1
            start = time.thread_time()  # the calling thread's: the cache is written in another
            try:
                return original(*args, **kwargs)
            finally:
                steps.cpu[label] += time.thread_time() - start
                steps.calls[label] += 1
                steps.depth -= 1

        @functools.wraps(original)
        def stepped(*args, **kwargs):  # a generator's: each of its slices timed
            slices, steps.calls[label] = original(*args, **kwargs), steps.calls[label] + 1
            while True:
                steps.depth += 1
                start = time.thread_time()
                try:
                    item = next(slices)
                except StopIteration as done:
                    return done.value
                finally:
                    steps.cpu[label] += time.thread_time() - start
                    steps.depth -= 1
                yield item

        setattr(owner, name, stepped if inspect.isgeneratorfunction(original) else timed)


def floor(agents: int, teams: int, now: datetime) -> list:
    """Every agent available, in teams of equal size; names as long as people's."""
    from dashboard.upstream import contract as c

    return [
        c.Agent(
            f"agent-{n:05d}",
            f"Agent {n:05d} Example",
            f"Team {n % teams:03d}",
            "available",
            now,
            None,
        )
        for n in range(agents)
    ]


def instrument(steps: Steps):
    from dashboard.drilldown import tiles
    from dashboard.live import publish, render, snapshot, team_tiles, view

    steps.wrap(render.Renderer, "agent", "tiles rendered")
    steps.wrap(team_tiles.TeamTiles, "join", "teams' tiles joined")
    steps.wrap(team_tiles, "by_team", "teams' parts of a push")
    steps.wrap(view.FloorView, "render_kpis", "KPI strips")
    steps.wrap(view.FloorView, "view_parts", "the view's other parts")
    steps.wrap(snapshot, "entries", "cache entries composed")
    steps.wrap(publish, "store", "cache written")
    steps.wrap(tiles, "store", "agent pages' tiles cached")
    steps.wrap(view.FloorView, "render_board", "wallboard's panels")


async def play(args, steps: Steps):
    from asgiref.sync import sync_to_async
    from django.core.cache import cache

    from dashboard.accounts.scope import key
    from dashboard.live import publish, view
    from dashboard.live.audiences import LIVE_VIEW, Shows
    from dashboard.live.frames import frame
    from dashboard.live.state import LiveState
    from dashboard.main.bridge_task import live_feed
    from dashboard.shared.cache_keys import TEAM_SETS_KEY
    from dashboard.upstream import contract as c

    clock = Clock()
    view.time = publish.time = clock.module()
    agents = floor(args.agents, args.teams, datetime.now(UTC))
    teams = sorted({a.team for a in agents})
    await sync_to_async(cache.clear)()
    cache.set(TEAM_SETS_KEY, {key((t,)): time.time() for t in teams}, None)
    audiences = [LIVE_VIEW, *(Shows(LIVE_VIEW.parts, (t,)) for t in teams)]
    feed = live_feed(LiveState(UTC), heartbeat=5.0)
    feed.snapshot(agents, [])
    feed.status("connected")
    await feed.publisher.publish(feed.inbox.take())  # the whole view, not counted
    clock.at += 1.0

    rng, by_id, seq = random.Random(26), {a.agent_id: a for a in agents}, 0
    ids = list(by_id)
    per_push = max(1, round(args.rate * feed.tick))
    pushes = round(args.seconds / feed.tick)
    frames = 0
    instrument(steps)
    start = time.process_time()
    for _ in range(pushes):
        for _ in range(per_push):
            was = by_id[ids[rng.randrange(len(ids))]]
            now, seq = datetime.now(UTC), seq + 1
            status = CYCLE.get(was.status, "available")
            agent = by_id[was.agent_id] = replace(was, status=status, since=now)
            t = time.process_time()
            feed.event(c.Event("agent.status", "org", seq, now, c.AgentChanged(agent)))
            steps.cpu["events applied"] += time.process_time() - t
        clock.at += feed.tick
        t = time.process_time()
        captured = {}
        layer = feed.publisher.layer
        send = layer.group_send

        async def keep(group, message, captured=captured, send=send):
            captured.setdefault(group, message)
            await send(group, message)

        layer.group_send = keep
        await feed.publisher.publish(feed.inbox.take())
        layer.group_send = send
        steps.cpu["publish (all)"] += time.process_time() - t
        message = captured.get("live")
        for audience in audiences if message else ():
            t = time.process_time()
            text = audience.frame(message)
            steps.cpu["framed per audience: composed"] += time.process_time() - t
            if text:
                t = time.process_time()
                frame(text.encode(), 15)
                steps.cpu["framed per audience: compressed"] += time.process_time() - t
                frames += 1
    total = time.process_time() - start
    return total, seq, pushes, frames


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--agents", type=int, default=10_000)
    parser.add_argument("--teams", type=int, default=100)
    parser.add_argument("--rate", type=float, default=1000.0, help="events a second")
    parser.add_argument("--seconds", type=float, default=10.0, help="simulated seconds")
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    django.setup()
    steps = Steps()
    total, events, pushes, frames = asyncio.run(play(args, steps))
    per_k = 1000 / events
    print(
        f"{args.agents} agents, {args.teams} teams, {events} events in {pushes} pushes, "
        f"{frames} audience frames; CPU-s per 1,000 events:"
    )
    print(f"  {'everything':<28} {total * per_k:7.3f}")
    for label, cpu in sorted(steps.cpu.items(), key=lambda x: -x[1]):
        calls = steps.calls.get(label)
        each = f"  {cpu / calls * 1e3:8.3f} ms x {calls}" if calls else ""
        print(f"  {label:<28} {cpu * per_k:7.3f}{each}")


if __name__ == "__main__":
    main()
