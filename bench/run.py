"""`make bench`: the live path's latency and cost, end to end, beside an ideal reference.

For each setup (agents, clients) it starts the simulated tenant in load mode, then the
target: the dashboard (`manage.py serve`: Daphne, bridge and feed) or the ideal reference
(bench/reference.py: the same coalescing, one JSON frame per tick, nothing else), then
client processes (bench/clients.py). Each scenario is one window: the simulator is paused,
the clients are told the first seq, the simulator resumes at the scenario's rate for its
seconds and pauses again, and the run waits until the target and the clients are idle, so
every event has had its chance to arrive. What counts as delivered and lost is defined in
docs/performance.md. A scenario may split its clients: `team_clients` of them follow one
team each ("my floor", over a floor of `teams` teams), the rest the whole floor, each
audience's figures apart; with `workers`, the target is the production topology (that
many Daphne workers and one `manage.py bridge` over Redis and PostgreSQL), the clients
spread over the workers, each worker's figures apart. Scenarios of other kinds add their
own module and results entry.
"""

import argparse
import dataclasses
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from bench import (
    alerts,
    backfill,
    browser,
    browser10k,
    interventions,
    loop_stalls,
    probe,
    reconnect,
    replay,
    storage,
    whatchanged,
)
from bench.topology import Topology
from dashboard.live.feed import TICK_S  # the reference coalesces on the live feed's tick
from dashboard.testing.processes import Process, free_port
from dashboard.testing.servers import start_dashboard
from dashboard.testing.simulator import start_simulator

ROOT = Path(__file__).resolve().parent.parent
HOOK = ROOT / "bench" / "hook"  # loop_stalls.py's, loaded by a process with it on its path
RESULTS = ROOT / "bench" / "results"
CLIENTS_PER_PROCESS = 170
CONNECTS_PER_S = 50  # browsers arriving, all client processes together
TICKS = os.sysconf("SC_CLK_TCK")
HEARTBEAT_S = float(os.environ.get("LIVE_HEARTBEAT_S", 5))  # the live feed's (settings)


@dataclass
class Scenario:
    name: str
    agents: int
    events_per_s: float
    clients: int
    seconds: float
    events: int = 0  # a burst: this many, even if the simulator falls behind its schedule
    target_p99_ms: float = 0
    teams: int = 0  # the simulator's teams (0: its four named ones)
    team_clients: int = 0  # of the clients, these follow one team each
    workers: int = 0  # 0: `manage.py serve`; else that many web workers and a bridge
    floor_target_p99_ms: float = 0  # the whole floor's sockets', beside the teams'
    connects_per_s: float = CONNECTS_PER_S  # browsers arriving, all client processes together

    @property
    def size(self) -> tuple:
        """Scenarios of the same size share one setup."""
        return (self.agents, self.clients, self.teams, self.team_clients, self.workers)


FLOOR10K = {
    "target_p99_ms": 150,
    "floor_target_p99_ms": 300,
    "teams": 100,
    "team_clients": 900,
    "connects_per_s": 20,
}
SCENARIOS = {
    s.name: s
    for s in [
        Scenario("small", 40, 5, 10, 10),
        Scenario("floor", 1000, 200, 500, 20, target_p99_ms=100),
        Scenario("burst", 1000, 2000, 500, 0.9, events=2000, target_p99_ms=500),
        Scenario("crowd", 1000, 200, 1500, 20, target_p99_ms=250),
        Scenario("smoke", 10, 5, 3, 2),  # the smoke test's
        # 10,000 agents in 100 teams: 900 "my floor" pages of one team each, 100 whole floors
        Scenario("floor10k", 10000, 1000, 1000, 20, **FLOOR10K),
        Scenario("scaleout", 10000, 1000, 1000, 20, workers=2, **FLOOR10K),  # two web workers
        Scenario(  # the smoke test's: teams and the whole floor, over two workers
            "teams_smoke", 40, 10, 6, 3, teams=4, team_clients=4, workers=2
        ),
    ]
}
OTHERS = {  # scenarios with a module of their own
    "backfill": backfill.measure,
    "backfill_smoke": lambda workdir, spawn: backfill.measure(  # the smoke test's
        workdir, agents=40, rate=20, sockets=3, after_s=2, history_delay_s=1
    ),
    "reconnect": reconnect.measure,
    "interventions": interventions.measure,
    "replay": replay.measure,
    "replay_smoke": lambda workdir, spawn: replay.measure(  # the smoke test's
        workdir, agents=50, rate=50, seconds=120, seeks=20
    ),
    "alerts": alerts.measure,  # the floor's size for ten minutes
    "alerts_smoke": lambda workdir, spawn: alerts.measure(  # the smoke test's
        workdir, spawn, agents=40, rate=20, seconds=5
    ),
    "whatchanged": whatchanged.measure,  # one evaluation of "What changed" at 1,000 agents
    "whatchanged_smoke": lambda workdir, spawn: whatchanged.measure(  # the smoke test's
        workdir, evals=10, lag_seconds=1
    ),
    "storage": storage.measure,  # the database's growth an event at the floor's size
    "storage_postgres": lambda workdir, spawn: storage.measure(workdir, spawn, postgres=True),
    "storage_smoke": lambda workdir, spawn: storage.measure(  # the smoke test's
        workdir, spawn, agents=40, rate=200, seconds=15, warmup=3
    ),
    "browser10k": browser10k.measure,  # the live view at 10,000 agents, still and scrolling
    "browser10k_smoke": lambda workdir, spawn: browser10k.measure(  # the smoke test's
        workdir,
        agents=300,
        rate=20,
        clients=2,
        still_s=1,
        scroll_s=1,
        filter_s=1,
        window_from=100,
        viewport=(1280, 800),
        margin_s=1,
    ),
}
# Event-to-paint in Chromium (bench/browser.py), each page during one window of the load
BROWSER_PAGES = {
    "browser": (
        Scenario("browser", 1000, 200, 500, 15),
        [
            browser.Page("live", "", 1920, 1080),
            browser.Page("live_x4", "", 1920, 1080, throttle=4),
            *browser.TV_PAGES,
        ],
    ),
    "browser_tv": (  # the weakest screen alone, measured as in `browser`
        Scenario("browser_tv", 1000, 200, 500, 15),
        list(browser.TV_PAGES),
    ),
    "browser_small": (
        Scenario("browser_small", 40, 5, 10, 15),
        [browser.Page("live", "", 1920, 1080)],
    ),
    "browser_smoke": (  # the smoke test's
        Scenario("browser_smoke", 10, 5, 3, 2),
        [
            browser.Page("live", "", 1280, 800),
            browser.Page("wallboard", "kiosk", 1280, 800, warmup_s=1),  # as the TV's: warmed
        ],
    ),
}
DEFAULT = (
    "small",
    "floor",
    "burst",
    "crowd",
    "reconnect",
    "replay",
    "browser",
    "browser_small",
    "alerts",
    "interventions",
    "whatchanged",
    "storage",
    "floor10k",
    "scaleout",
)


def cpu_ticks(pid: int) -> int:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # utime + stime


def peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return round(int(line.split()[1]) / 1024, 1)
    return 0.0


def settle(pids: list[int], limit: float = 90) -> float:
    """Wait until these processes are idle (under 5% of a core for 0.6 s); returns how long
    they took to go idle."""
    started = idle_since = time.monotonic()
    before = [cpu_ticks(p) for p in pids]
    while time.monotonic() - started < limit:
        time.sleep(0.3)
        now = [cpu_ticks(p) for p in pids]
        busy = max(b - a for a, b in zip(before, now, strict=True)) / TICKS / 0.3
        before = now
        if busy >= 0.05:
            idle_since = time.monotonic()
        elif time.monotonic() - idle_since >= 0.6:
            break
    return round(idle_since - started, 2)


def percentile(hist: dict[int, int], q: float) -> float:
    """q-quantile (0..1) of a histogram in 0.1 ms steps, in ms."""
    total = sum(hist.values())
    if not total:
        return float("nan")
    rank, seen = q * (total - 1), 0
    for step in sorted(hist):
        seen += hist[step]
        if seen > rank:
            return round(step / 10, 1)
    return round(max(hist) / 10, 1)


class Setup:
    """The simulator, one target and its clients, for scenarios of the same size."""

    def __init__(
        self, kind: str, s: Scenario, workdir: Path, profile: bool = False, stalls: bool = False
    ):
        self.kind, self.workdir, self.children, self.server = kind, workdir, [], None
        self.topology, self.profile = None, profile
        # the dashboard's processes time their loops' callbacks (loop_stalls.py) in here
        self.stalls = None
        if stalls and kind == "dashboard":  # a folder per setup: floor10k's, scaleout's
            self.stalls = workdir / f"loop-stalls-{s.name}"
        teams = ("--teams", s.teams) if s.teams else ()
        self.sim = start_simulator(
            # No history: these scenarios measure the live path in its steady state, not
            # beside a fill of the day (the backfill scenario measures that).
            "--agents",
            s.agents,
            *teams,
            "--events-per-second",
            1,
            "--faults",
            "--seed",
            7,
            "--history-days",
            0,
        )
        try:
            self._start(s)
        except BaseException:
            self.stop()
            raise

    def _start(self, s: Scenario):
        self.sim.control("pause")
        sim_args = ("--sim", self.sim.auth_url)
        self.metrics_url = None
        timed = {}
        if self.stalls:
            self.stalls.mkdir(exist_ok=True)
            path = os.pathsep.join(filter(None, [str(HOOK), os.environ.get("PYTHONPATH")]))
            timed = {"LOOP_STALLS_DIR": self.stalls, "PYTHONPATH": path}
        if self.kind == "dashboard" and s.workers:
            self.topology = Topology(self.sim, s.workers, **timed)
            self.cookies = self.topology.cookies()
            self.targets = [w.pid for w in self.topology.workers] + [self.topology.bridge.pid]
            urls = self.topology.urls
            self.metrics_url = urls[0]
        elif self.kind == "dashboard":
            # INFO: the bridge's seq gaps and reconnects (each a reload) show in the results
            env = {"LOG_LEVEL": "INFO", "METRICS_TOKEN": probe.METRICS_TOKEN, **timed}
            # its first whole view of a large floor takes seconds of the loop to render
            self.server = start_dashboard(
                self.sim, self.workdir, env, timeout=120, people={"bench": "supervisor"}
            )
            # One sign-in through the form for all clients: each takes the password hash's
            # ~0.5 s in Django's one sync thread, which websocket handshakes also wait for.
            http = self.server.signed_in_client("bench")
            self.cookies = dict(http.cookies.items())
            http.close()
            self.targets, urls = [self.server.process.pid], [self.server.url]
            self.metrics_url = self.server.url
        else:
            port = free_port()
            ref = self._child("bench.reference", *sim_args, "--port", port, "--tick", TICK_S)
            ref.expect("reference ready", 30)
            self.targets, urls = [ref.pid], [f"http://127.0.0.1:{port}"]
            self.cookies = {}
        self.pid = self.targets[0]
        cookie = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        self.recorder = self._child("bench.reference", *sim_args)
        self.recorder.expect("reference ready", 30)
        self.clients, self.client_group, self.client_worker = [], [], []
        follow = self._follow() if s.team_clients else ""
        groups = [
            ("team", s.team_clients, ["--follow", follow]),
            ("floor", s.clients - s.team_clients, []),
        ]
        processes = sum(
            max(math.ceil(n / CLIENTS_PER_PROCESS), len(urls)) for _, n, _ in groups if n
        )
        for group, clients, extra in groups:
            n = max(math.ceil(clients / CLIENTS_PER_PROCESS), len(urls)) if clients else 0
            offset = 0
            for i in range(n):
                count = clients // n + (i < clients % n)
                args = ["--mode", self.kind, "--url", urls[i % len(urls)], "--count", str(count)]
                args += ["--ramp", str(processes / s.connects_per_s), *extra, "--offset", offset]
                if cookie:
                    args += ["--cookie", cookie]
                self.clients.append(self._child("bench.clients", *args))
                self.client_group.append(group)
                self.client_worker.append(i % len(urls))
                offset += count
        self.connected = sum(int(x.expect("connected", 240).split()[1]) for x in self.clients)

    def _follow(self) -> str:
        """The file telling team clients the teams and each agent's team (the simulator's)."""
        agents = {a["agentId"]: a["team"] for a in self.sim.agents()}
        path = self.workdir / f"follow-{self.kind}.json"
        path.write_text(json.dumps({"teams": sorted(set(agents.values())), "agents": agents}))
        return str(path)

    def _child(self, module, *args):
        child = spawn(module, *args)
        self.children.append(child)
        return child

    def seq(self) -> int:
        return self.sim.stats()["seq"][self.sim.org_a]

    def window(self, rate: float, seconds: float, events: int = 0) -> dict:
        """One measured window: `seconds` at `rate` events/s from a quiet start (or, given
        `events`, until that many were emitted, however late the simulator is)."""
        lo = self._start_measuring(rate)
        logged = len(self.log())
        ticks = cpu_ticks(self.pid)
        each = {pid: cpu_ticks(pid) for pid in self.targets}
        client_pids = [client.pid for client in self.clients]
        client_ticks = sum(map(cpu_ticks, client_pids))
        lags = probe.lag_buckets(self.metrics_url) if self.metrics_url else {}
        loops = self._loops()
        profile = None
        if self.profile and self.kind == "dashboard":
            profile = probe.Profile(self.pid, seconds, self.workdir / f"profile-{lo}.txt")
        cpu, load_s = self._emit(lo, seconds, events)
        hi, lag = self.seq(), self.sim.stats()["lag_ms"]
        drain = self._drain()
        work = (cpu_ticks(self.pid) - ticks) / TICKS  # everything the window cost it
        each = {pid: (cpu_ticks(pid) - t) / TICKS / load_s for pid, t in each.items()}
        client_work = (sum(map(cpu_ticks, client_pids)) - client_ticks) / TICKS
        truth, parts = self._reports(lo, hi)
        log = self.log()[logged:]
        recorded = json.loads(truth.read_text())["count"]
        out = {}
        if self.metrics_url:
            out["bridge_lag_p99_ms"] = probe.lag_p99_ms(lags, probe.lag_buckets(self.metrics_url))
        if profile:
            out["profile"] = profile.summary()
        if self.stalls:
            after = self._loops()
            out["loop"] = {name: loop_stalls.between(loops[name], after[name]) for name in after}
        for group in dict.fromkeys(self.client_group):
            mine = [p for p, g in zip(parts, self.client_group, strict=True) if g == group]
            out[group] = delivery(mine, hi - lo, recorded)
        if self.topology:
            out["workers"] = [
                {
                    **delivery(
                        [p for p, w in zip(parts, self.client_worker, strict=True) if w == n],
                        hi - lo,
                        recorded,
                    ),  # fmt: skip
                    "cpu_s_per_s": round(each[worker.pid], 3),
                    "rss_mb": peak_rss_mb(worker.pid),
                }
                for n, worker in enumerate(self.topology.workers)
            ]
            out["bridge_cpu_s_per_s"] = round(each[self.topology.bridge.pid], 3)
            out["bridge_rss_mb"] = peak_rss_mb(self.topology.bridge.pid)
        return {
            "connected": self.connected,
            # a reload after a gap or a reconnect shows the right state under an older seq
            "bridge_reloads": log.count("seq gap") + log.count("realtime session ended"),
            **delivery(parts, hi - lo, recorded),
            **out,
            "cpu_pct": round(100 * cpu, 1),
            # while the load ran, per 1,000 events: comparable across rates and loaded machines
            "cpu_s_per_1k_events": round(cpu * load_s / max(hi - lo, 1) * 1000, 3),
            "cpu_s": round(work, 2),
            "cpu_s_per_s": round(work / load_s, 3),
            "load_s": round(load_s, 2),
            "rss_mb": peak_rss_mb(self.pid),
            "drain_s": drain,
            "sim_lag_ms": lag,
            # all client processes together; near the machine's cores, they are what saturates
            "clients_cpu_s_per_s": round(client_work / load_s, 3),
        }

    def _loops(self) -> dict[str, dict]:
        """Each dashboard process's loop callbacks timed so far, by its name (`web`; under
        the topology `web-1`.., `bridge-1`); {} when they are not timed."""
        if not self.stalls:
            return {}
        named = self.topology.processes if self.topology else {"web": self.server.process}
        return {n: loop_stalls.read(self.stalls / f"{p.pid}.json") for n, p in named.items()}

    def _start_measuring(self, rate: float) -> int:
        """Set the rate, tell the clients the first seq; that seq."""
        self.sim.control("rate", events_per_second=rate)
        lo = self.seq()
        for client in self.clients:
            client.say(f"window {lo}")
        for client in self.clients:
            client.expect("measuring", 30)
        return lo

    def log(self) -> str:
        if self.topology:
            return self.topology.log()
        return self.server.log() if self.server else ""

    def _emit(self, lo: int, seconds: float, events: int) -> tuple[float, float]:
        """Let the simulator run; the target's CPU share meanwhile (of one core), and for
        how long it ran."""
        ticks, started = cpu_ticks(self.pid), time.monotonic()
        self.sim.control("resume")
        time.sleep(seconds)
        while events and self.seq() - lo < events and time.monotonic() - started < 15:
            time.sleep(0.02)
        self.sim.control("pause")
        load_s = time.monotonic() - started
        return (cpu_ticks(self.pid) - ticks) / TICKS / load_s, load_s

    def _drain(self) -> float:
        """Wait until the target and the clients are idle; how long the backlog took."""
        pids = [*self.targets, *(client.pid for client in self.clients)]
        drain = settle(pids)
        if self.kind == "dashboard":  # a dropped push is repaired by the next: the heartbeat
            time.sleep(HEARTBEAT_S + 1)
            settle(pids)
        return drain

    def _reports(self, lo: int, hi: int) -> tuple[Path, list[dict]]:
        """The recorder's truth of seqs lo..hi, and each client process's report on it."""
        truth = self.workdir / f"truth-{lo}.json"
        self.recorder.say(f"dump {truth} {lo} {hi}")
        self.recorder.expect("dumped", 30)
        parts = []
        for i, client in enumerate(self.clients):
            out = self.workdir / f"clients-{lo}-{i}.json"
            client.say(f"report {truth} {out}")
            client.expect("reported", 60)
            parts.append(json.loads(out.read_text()))
        return truth, parts

    def stop(self):
        for child in reversed(self.children):
            child.stop()
        if self.server:
            self.server.stop()
        if self.topology:
            self.topology.stop()
        self.sim.stop()


def delivery(parts: list[dict], emitted: int, recorded: int) -> dict:
    """Latency, losses and the clients' own lag, from the client processes' reports."""
    latency, lag, lost, shown, errors, foreign = {}, {}, [], [], [], 0
    for part in parts:
        for hist, into in ((part["latency"], latency), (part["lag"], lag)):
            for k, v in hist.items():
                into[int(k)] = into.get(int(k), 0) + v
        lost += part["lost"]
        foreign += part.get("foreign", 0)
        shown += part["shown"]
        errors += part["errors"]
    return {
        "emitted": emitted,
        "recorded": recorded,
        **{f"p{q}_ms": percentile(latency, q / 100) for q in (50, 95, 99)},
        "max_ms": round(max(latency) / 10, 1) if latency else float("nan"),
        # events the recorder missed could not be checked: count them lost to everyone
        "lost": sum(lost) + (emitted - recorded) * len(lost),
        "delivered_per_client_min": recorded - max(lost, default=0),
        "shown_per_client_median": statistics.median(shown) if shown else 0,
        "client_lag_ms": {"p99": percentile(lag, 0.99), "max": max(lag, default=0) / 10},
        "client_errors": errors[:5],
        "foreign": foreign,  # tiles of other teams shown to a team's clients: none is right
    }


def measure(
    kind: str, scenarios: list[Scenario], workdir: Path, profile=False, stalls=False
) -> dict:
    """Run the scenarios against one kind of target, one setup per size; with `stalls`, the
    dashboard's processes time their event loops' callbacks (bench/loop_stalls.py)."""
    out = {}

    def size(s: Scenario) -> tuple:  # the ideal reference has no workers: one process
        return s.size if kind == "dashboard" else s.size[:-1]

    for key in dict.fromkeys(map(size, scenarios)):
        group = [s for s in scenarios if size(s) == key]
        setup = Setup(kind, group[0], workdir, profile, stalls)
        try:
            for s in group:
                print(f"  {kind}: {s.name} ...", flush=True)
                out[s.name] = setup.window(s.events_per_s, s.seconds, s.events)
        finally:
            setup.stop()
    return out


DASHBOARD_KEYS = (
    "connected",
    "emitted",
    "recorded",
    "p50_ms",
    "p95_ms",
    "p99_ms",
    "max_ms",
    "lost",
    "bridge_reloads",
    "delivered_per_client_min",
    "shown_per_client_median",
    "load_s",
    "drain_s",
    "sim_lag_ms",
    "client_lag_ms",
    "clients_cpu_s_per_s",
    "client_errors",
)
IDEAL_KEYS = (
    "connected",
    "p50_ms",
    "p95_ms",
    "p99_ms",
    "max_ms",
    "lost",
    "cpu_s_per_s",
    "rss_mb",
    "drain_s",
    "client_lag_ms",
    "clients_cpu_s_per_s",
    "client_errors",
)


def combine(scenarios: list[Scenario], dash: dict, ideal: dict) -> dict:
    results = {}
    for s in scenarios:
        d, i = dash[s.name], ideal[s.name]
        results[s.name] = {
            "agents": s.agents,
            "events_per_s": s.events_per_s,
            "seconds": s.seconds,
            "clients": s.clients,
            **{k: d[k] for k in DASHBOARD_KEYS},
            "web_cpu_pct": d["cpu_pct"],
            "web_cpu_s_per_1k_events": d["cpu_s_per_1k_events"],
            "web_cpu_s": d["cpu_s"],
            "web_cpu_s_per_s": d["cpu_s_per_s"],
            "web_rss_mb": d["rss_mb"],
            **{f"ideal_{k}": i[k] for k in IDEAL_KEYS},
            "p99_vs_ideal": ratio(d["p99_ms"], i["p99_ms"]),
            "target_p99_ms": s.target_p99_ms or None,
            **{k: d[k] for k in PROCESS_KEYS if k in d},
            **audiences(s, d, i),
        }
    return results


PROCESS_KEYS = (
    "bridge_lag_p99_ms",
    "workers",
    "bridge_cpu_s_per_s",
    "bridge_rss_mb",
    "profile",
    "loop",
)


def audiences(s: Scenario, d: dict, i: dict) -> dict:
    """A scenario whose clients follow teams: the teams' and the whole floor's figures apart,
    each beside the ideal reference's for the same audience in the same run."""
    if not s.team_clients:
        return {}
    out = {"foreign": d["team"]["foreign"], "floor_target_p99_ms": s.floor_target_p99_ms}
    for group in ("team", "floor"):
        if group in d:
            out |= {
                f"{group}_p99_ms": d[group]["p99_ms"],
                f"{group}_p50_ms": d[group]["p50_ms"],
                f"{group}_lost": d[group]["lost"],
                f"ideal_{group}_p99_ms": i[group]["p99_ms"],
                f"{group}_vs_ideal": ratio(d[group]["p99_ms"], i[group]["p99_ms"]),
            }
    return out


def ratio(a, b):
    return round(a / b, 2) if b and b == b else None  # b == b: not NaN


def table(results: dict) -> str:
    head = (
        "scenario  agents  ev/s  clients  emitted  p50   p95   p99     max  ideal p99  x ideal"
        "  lost  cpu s/s  RSS MB  sim lag p99  client lag p99  clients cpu s/s"
    )
    rows = [head, "-" * len(head)]
    for name, r in results.items():
        rows.append(
            f"{name:<9} {r['agents']:>6} {r['events_per_s']:>5g} {r['clients']:>8}"
            f" {r['emitted']:>8} {r['p50_ms']:>5g} {r['p95_ms']:>5g} {r['p99_ms']:>5g}"
            f" {r['max_ms']:>7g} {r['ideal_p99_ms']:>10g} {r['p99_vs_ideal'] or 0:>8g}"
            f" {r['lost']:>5} {r['web_cpu_s_per_s']:>8g} {r['web_rss_mb']:>7g}"
            f" {r['sim_lag_ms']['p99']:>12g} {r['client_lag_ms']['p99']:>15g}"
            f" {r['clients_cpu_s_per_s']:>16g}"
        )
    return "\n".join(rows)


def plot(results: dict, path: Path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    keys = ("p50_ms", "p95_ms", "p99_ms", "max_ms")
    results = {k: v for k, v in results.items() if k in SCENARIOS}
    if not results:  # the browser or replay scenarios alone: nothing of the sockets to plot
        return
    fig, axes = plt.subplots(1, len(results), figsize=(4.2 * len(results), 4), squeeze=False)
    for ax, (name, r) in zip(axes[0], results.items(), strict=True):
        xs = range(len(keys))
        ax.bar([x - 0.2 for x in xs], [r[k] for k in keys], 0.4, label="dashboard")
        ax.bar([x + 0.2 for x in xs], [r[f"ideal_{k}"] for k in keys], 0.4, label="ideal")
        ax.set_xticks(list(xs), [k.split("_")[0] for k in keys])
        ax.set_yscale("log")
        ax.set_ylabel("latency, ms (log)")
        ax.set_title(
            f"{name}: {r['agents']} agents, {r['events_per_s']:g}/s, {r['clients']} clients",
            fontsize=9,
        )
        if r["target_p99_ms"]:
            ax.axhline(r["target_p99_ms"], color="grey", linestyle=":", label="p99 target")
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def spawn(module: str, *args) -> Process:
    """A helper process (`python -m module`) driven by lines on stdin, answering with lines
    on stdout."""
    return Process([sys.executable, "-m", module, *map(str, args)], stdin=True)


KIOSK = (
    "from dashboard.wallboard.models import KioskLink\n"
    "from django.utils import timezone\n"
    "from datetime import timedelta\n"
    "link = KioskLink.objects.create(name='Bench TV', panels=['agents'],"
    " expires_at=timezone.now() + timedelta(days=1))\n"
    "print('kiosk', link.token)\n"
)


def measure_browser(name: str, workdir: Path) -> dict:
    """Each of the scenario's pages in Chromium during one window of its load."""
    scenario, pages = BROWSER_PAGES[name]
    print(f"  dashboard: {name} ...", flush=True)
    setup = Setup("dashboard", scenario, workdir)
    chromium = browser.Browser()
    try:
        token = setup.server.manage("shell", "-c", KIOSK).split("kiosk ", 1)[1].split()[0]
        url = setup.server.url
        cookies = [{"name": k, "value": v, "url": url} for k, v in setup.cookies.items()]
        out = {}
        for page in pages:
            if page.path == "kiosk":
                page = dataclasses.replace(page, path=f"/wallboard/{token}/")
            print(f"    {page.name} ...", flush=True)
            out[page.name] = browser.measure_page(
                chromium,
                url,
                page,
                cookies,
                lambda seconds: setup.window(scenario.events_per_s, seconds or scenario.seconds),
            )
        return {
            "agents": scenario.agents,
            "events_per_s": scenario.events_per_s,
            "pages": out,
            **{f"{name}_p99_ms": r["paint_p99_ms"] for name, r in out.items()},
        }
    finally:
        chromium.close()
        setup.stop()


def measure_other(name: str, workdir: Path) -> dict:
    children = []

    def spawn_kept(module, *args):
        children.append(spawn(module, *args))
        return children[-1]

    print(f"  dashboard: {name} ...", flush=True)
    workdir.mkdir()
    try:
        return OTHERS[name](workdir, spawn_kept)
    finally:
        for child in children:
            child.stop()


def measure_all(
    names: list[str], scenarios: list[Scenario], profile: Path | None = None, stalls=False
) -> dict:
    """One run of the named scenarios: the socket ones against the dashboard and the ideal
    reference, then the others. With `profile`, where the dashboard's (the first worker's)
    CPU went in each socket scenario, sampled by py-spy, goes there; with `stalls`, each
    socket scenario's `loop` has its dashboard processes' loop callbacks (loop_stalls.py)."""
    with tempfile.TemporaryDirectory(prefix="bench-") as tmp:
        dash = measure("dashboard", scenarios, Path(tmp), bool(profile), stalls)
        if profile:
            for p in Path(tmp).glob("profile-*.txt"):
                shutil.copy(p, profile)
        ideal = measure("reference", scenarios, Path(tmp))
        results = combine(scenarios, dash, ideal)
        for name in names:
            if name in OTHERS:
                results[name] = measure_other(name, Path(tmp) / name)
            elif name in BROWSER_PAGES:
                results[name] = measure_browser(name, Path(tmp))
    return results


# Each run's own value of these is kept beside their medians (`per_run`).
PER_RUN = (
    "p99_ms",
    "p99_vs_ideal",
    "web_cpu_s_per_s",
    "web_cpu_s_per_1k_events",
    "web_rss_mb",
    "lost",
)


def median_of(runs: list[dict]) -> dict:
    """The runs' results as one: every number the median of the runs' (a ratio too: the
    median of each run's ratio, as the targets read), anything else the first run's; the
    socket scenarios keep each run's `PER_RUN` figures."""
    if len(runs) == 1:
        return runs[0]
    out = merged(runs)
    for name, r in out.items():
        if name in SCENARIOS:
            r["per_run"] = {k: [run[name][k] for run in runs] for k in PER_RUN}
    return {**out, "runs": len(runs)}


def merged(values: list):
    first = values[0]
    if isinstance(first, dict):
        return {k: merged([v[k] for v in values if isinstance(v, dict) and k in v]) for k in first}
    numbers = [v for v in values if figure(v) and v == v]  # NaN: no figure that run
    return round(statistics.median(numbers), 3) if figure(first) and numbers else first


def commit() -> str:
    """The commit measured, marked when the tree differs from it."""
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    dirty = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=no"], capture_output=True, text=True
    )
    return head.stdout.strip() + ("+changes" if dirty.stdout.strip() else "")


def write_latest(path: Path, results: dict, stamp: dict):
    """latest.json holds the newest figures of every scenario, each stamped with when and on
    which commit it was measured: a series of some scenarios leaves the others' figures."""
    latest = json.loads(path.read_text()) if path.exists() else {}
    latest.pop("runs", None)
    for name, figures in results.items():
        if isinstance(figures, dict):
            latest[name] = {**figures, "measured": stamp}
    path.write_text(json.dumps(latest, indent=2))


def figure(value) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def main():
    # Every process measured starts as a deployment's does, not forked from the harness's
    # fork server: a forked dashboard ran the floor at 1.2-1.3x the ideal and 0.29-0.38 CPU
    # s/s where one started afresh ran it at 1.02x and 0.20.
    os.environ["TEST_FORK_SERVER"] = "0"
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument(
        "--scenarios",
        default=",".join(DEFAULT),
        help=f"of {', '.join([*SCENARIOS, *OTHERS, *BROWSER_PAGES])}",
    )
    p.add_argument("--out", type=Path, default=RESULTS, help="where the results go")
    p.add_argument("--no-plot", action="store_true")
    p.add_argument(
        "--profile",
        action="store_true",
        help="sample where the dashboard's CPU goes (py-spy), kept in the results folder",
    )
    p.add_argument(
        "--stalls",
        action="store_true",
        help="time the dashboard's event loop callbacks (bench/loop_stalls.py): what each "
        "socket scenario's events waited behind, in its results' `loop`",
    )
    p.add_argument(
        "--runs", type=int, default=1, help="run everything this many times; report medians"
    )
    p.add_argument(
        "--seconds",
        type=float,
        help="each socket scenario's window this long instead of its own (quick A/B runs of "
        "CPU per event; the targets are read at the scenarios' own lengths)",
    )
    a = p.parse_args()
    names = a.scenarios.split(",")
    scenarios = [SCENARIOS[n] for n in names if n in SCENARIOS]
    if a.seconds:
        scenarios = [dataclasses.replace(s, seconds=a.seconds) for s in scenarios]
    started, load = time.monotonic(), os.getloadavg()
    date = datetime.now(UTC).strftime("%Y-%m-%d")
    stamp = {"date": date, "commit": commit(), "runs": a.runs, "load_before": round(load[0], 2)}
    a.out.mkdir(parents=True, exist_ok=True)
    runs = []
    for k in range(1, a.runs + 1):
        runs.append(measure_all(names, scenarios, a.out if a.profile else None, a.stalls))
        if a.runs > 1:  # each run kept as it ends: a long series is never lost to the last
            (a.out / f"{date}-run{k}.json").write_text(json.dumps(runs[-1], indent=2))
    results = median_of(runs)
    (a.out / f"{date}.json").write_text(json.dumps(results, indent=2))
    write_latest(a.out / "latest.json", results, stamp)
    if not a.no_plot:
        plot(results, a.out / f"{date}.png")
    print(table({k: v for k, v in results.items() if k in SCENARIOS}))
    for name in OTHERS:
        if name in results:
            print(f"{name}: {json.dumps(results[name])}")
    for name in BROWSER_PAGES:
        if name in results:
            print(f"{name}:\n{browser.summary(results[name]['pages'])}")
    print(
        f"\n{len(runs)} run(s), medians; {time.monotonic() - started:.0f} s on {os.cpu_count()}"
        f" cores; load average before: "
        f"{load[0]:.2f} (figures are noisy when other work shares the machine)"
    )


if __name__ == "__main__":
    main()
