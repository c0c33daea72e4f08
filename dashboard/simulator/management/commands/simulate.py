"""`manage.py simulate`: the simulated tenant, served by uvicorn on its own port."""

import asyncio
import os

import uvicorn
from django.core.management.base import BaseCommand

from dashboard.simulator import shapes
from dashboard.simulator.app import OUTBOUND_GROUPS, Options, Simulator


class Command(BaseCommand):
    help = "Run the simulated tenant (auth, REST, Socket.IO, webhooks) for demos and tests."

    def add_arguments(self, parser):
        env = os.environ.get
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", type=int, default=int(env("SIMULATOR_PORT", "8100")))
        parser.add_argument("--agents", type=int, default=40)
        parser.add_argument(
            "--teams", type=int, default=0, help="numbered teams (0: the four named ones)"
        )
        parser.add_argument("--seed", type=int, default=1)
        parser.add_argument("--speed", type=float, default=1.0, help="time multiplier")
        parser.add_argument(
            "--events-per-second",
            type=float,
            default=0.0,
            help="load mode: drive organisation A's event rate directly",
        )
        parser.add_argument("--token-ttl", type=int, default=3600, help="access token life (s)")
        parser.add_argument("--webhook-url", default="")
        parser.add_argument("--webhook-secret", default=env("SIM_WEBHOOK_SECRET", ""))
        parser.add_argument(
            "--zone",
            default=env("TIME_ZONE", "UTC"),
            help="the organisation's time zone: its days and busy hours (history)",
        )
        parser.add_argument(
            "--history-days",
            type=int,
            default=35,
            help="days of history before the start, today's part included (0: none)",
        )
        parser.add_argument(
            "--history-shape",
            action="append",
            default=[],
            metavar="steady|surge@HH:MM|pause:TEAM@HH:MM",
            help="a known shape of the past, for tests (dashboard/simulator/shapes.py)",
        )
        parser.add_argument("--faults", action="store_true", help="enable /_control/")
        parser.add_argument("--anon-key", default=env("SIM_ANON_KEY", "sim-anon-key"))
        parser.add_argument("--password", default=env("SIM_PASSWORD", "sim-password"))
        parser.add_argument("--email-a", default=env("SIM_EMAIL_A", "svc-a@sim.local"))
        parser.add_argument("--email-b", default=env("SIM_EMAIL_B", "svc-b@sim.local"))
        parser.add_argument("--email-agent", default=env("SIM_EMAIL_AGENT", "agent-a@sim.local"))
        parser.add_argument(
            "--without",
            action="append",
            default=[],
            metavar="GROUP[:404|405]",
            help=f"answer a whole outbound group as absent; groups: {', '.join(OUTBOUND_GROUPS)}",
        )

    def handle(self, **o):
        if o["agents"] < 1 or o["speed"] <= 0 or o["token_ttl"] < 1 or o["events_per_second"] < 0:
            raise SystemExit("--agents, --speed and --token-ttl must be positive.")
        try:
            shape = shapes.parse(o["history_shape"])
        except ValueError as wrong:
            raise SystemExit(str(wrong)) from None
        options = Options(
            agents=o["agents"],
            teams=o["teams"],
            seed=o["seed"],
            speed=o["speed"],
            events_per_second=o["events_per_second"],
            token_ttl=o["token_ttl"],
            anon_key=o["anon_key"],
            password=o["password"],
            emails={
                "a": o["email_a"],
                "b": o["email_b"],
                "agent": o["email_agent"],
                "mfa": "mfa-a@sim.local",
            },
            webhook_url=o["webhook_url"],
            webhook_secret=o["webhook_secret"],
            faults=o["faults"],
            without=groups_off(o["without"]),
            zone=o["zone"],
            history_days=max(0, o["history_days"]),
            history_shape=shape,
        )
        asyncio.run(self.serve(Simulator(options), o["host"], o["port"]))

    async def serve(self, sim: Simulator, host: str, port: int):
        config = uvicorn.Config(
            sim.asgi,
            host=host,
            port=port,
            log_level="warning",
            lifespan="off",
            ws="websockets-sansio",
            # A stop does not wait on requests a test holds (`history-delay`, `rest-delay`).
            timeout_graceful_shutdown=1,
        )
        server = uvicorn.Server(config)
        serving = asyncio.create_task(server.serve())
        while not server.started:
            if serving.done():
                return await serving  # could not bind: uvicorn said why
            await asyncio.sleep(0.02)
        tasks = [asyncio.create_task(sim.run_model())]
        if sim.o.events_per_second:
            tasks.append(asyncio.create_task(sim.run_load()))
            tasks.append(asyncio.create_task(self.report(sim)))
        base = f"http://{host}:{port}"
        users = sim.o.emails
        self.stdout.write(
            f"auth url: {base}\nbase url: {base}/api\n"
            + (f"control url: {base}/_control\n" if sim.o.faults else "")
            + f"anon key: {sim.o.anon_key}\n"
            f"organisation A: {sim.stats()['org_a']} service user {users['a']}\n"
            f"organisation B: {sim.stats()['org_b']} service user {users['b']}\n"
            f"agent-role user: {users['agent']}; MFA user: {users['mfa']}\n"
            f"password (all users): {sim.o.password}\n"
            "simulator ready"
        )
        self.stdout.flush()
        try:
            await serving
        finally:
            for task in tasks:
                task.cancel()
            await sim.deliveries.close()

    async def report(self, sim: Simulator):
        while True:
            await asyncio.sleep(5)
            s = sim.stats()
            lag = s["lag_ms"]
            self.stdout.write(
                f"load: {s['emit_rate']} events/s, lag p50 {lag['p50']} ms "
                f"p99 {lag['p99']} ms max {lag['max']} ms"
            )
            self.stdout.flush()


def groups_off(specs: list[str]) -> dict[str, int]:
    """`--without callbacks --without ai-dialer:405` -> {"callbacks": 404, "ai-dialer": 405}."""
    off = {}
    for spec in specs:
        group, _, status = spec.partition(":")
        if group not in OUTBOUND_GROUPS or status not in ("", "404", "405"):
            raise SystemExit(
                f"--without {spec}: a group of {', '.join(OUTBOUND_GROUPS)}, "
                "optionally with :404 or :405"
            )
        off[group] = int(status or 404)
    return off
