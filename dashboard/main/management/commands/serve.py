"""The single-machine server: Daphne and the live bridge on one event loop.

Daphne runs no ASGI lifespan (django/daphne#264) and the in-memory channel layer does not
cross processes, so the bridge must live inside the web process here. With no upstream
configured, the simulated tenant is started as a child process and stopped with us.
Production runs the same server class in web workers (`python -m dashboard.live.web`) and
`manage.py bridge` separately (docs/deploy.md).
"""

import asyncio
import logging
import os
import secrets
import signal
import subprocess
import sys
import threading

from dashboard.live.server import FanoutServer  # installs Twisted's asyncio reactor: first  # isort: skip

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from twisted.internet import defer, reactor

from config.asgi import application
from dashboard.live import fanout
from dashboard.main.bridge_task import BridgeTask

log = logging.getLogger("dashboard.serve")
SIMULATOR_READY = "simulator ready"


def _die_with_parent():
    """Run in a child before exec: the kernel sends it SIGTERM if we die, however we die."""
    import ctypes

    ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


class Command(BaseCommand):
    help = "Serve the dashboard with Daphne and run the live bridge in the same process."

    def add_arguments(self, parser):
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", type=int, default=settings.DEMO_PORT)

    def handle(self, host, port, **options):
        _die_with_parent()  # `make run` may be stopped by SIGTERM, which make does not forward
        simulator = None
        if settings.UPSTREAM_USE_SIMULATOR:
            if not settings.UPSTREAM_WEBHOOK_SECRETS:  # every configured one stays valid
                settings.UPSTREAM_WEBHOOK_SECRETS = [secrets.token_urlsafe(32)]
            simulator = self._start_simulator(
                f"http://{host}:{port}/webhooks/service/", settings.UPSTREAM_WEBHOOK_SECRETS[0]
            )

        bridge = BridgeTask()
        server = FanoutServer(
            application,
            endpoints=[f"tcp:port={port}:interface={host}"],
            websocket_timeout=-1,  # wallboards stay connected for weeks
            ready_callable=lambda: reactor.callLater(0, bridge.start),
        )

        async def stop_all():
            # Browsers' sockets close with 1012, which htmx retries: they come back by themselves.
            await fanout.close_all()
            await asyncio.sleep(0.2)
            await bridge.stop()

        def shutdown():
            d = defer.Deferred.fromFuture(asyncio.ensure_future(stop_all()))
            if simulator:
                d.addBoth(lambda _: self._stop_child(simulator))
            return d

        reactor.addSystemEventTrigger("before", "shutdown", shutdown)
        self.stdout.write(f"Serving on http://{host}:{port}/ (Ctrl-C stops everything)")
        server.run()

    def _start_simulator(self, webhook_url, secret):
        port = settings.SIMULATOR_PORT
        cmd = [
            sys.executable,
            "manage.py",
            "simulate",
            "--port",
            str(port),
            "--webhook-url",
            webhook_url,
            "--zone",  # the tenant's days and busy hours are the dashboard's
            settings.TIME_ZONE,
        ]
        child = subprocess.Popen(
            cmd,
            cwd=settings.BASE_DIR,
            env={**os.environ, "SIM_WEBHOOK_SECRET": secret},  # not in argv: `ps` shows that
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            preexec_fn=_die_with_parent,
        )
        ready = threading.Event()

        def relay():
            for line in child.stdout:
                if SIMULATOR_READY in line:
                    ready.set()
                if "secret" not in line.lower():
                    sys.stdout.write(f"[simulator] {line}")
            ready.set()

        threading.Thread(target=relay, daemon=True).start()
        if not ready.wait(30) or child.poll() is not None:
            self._stop_child(child)
            raise CommandError(f"The simulated tenant did not start on port {port}.")
        return child

    @staticmethod
    def _stop_child(child):
        child.terminate()
        try:
            child.wait(5)
        except subprocess.TimeoutExpired:
            child.kill()
