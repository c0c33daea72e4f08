"""The production topology as the bench's target: Redis, PostgreSQL, N Daphne workers and
one `manage.py bridge` (docs/deploy.md), against the simulated tenant, each process's CPU
and memory read apart. The metrics are shared by the processes (PROMETHEUS_MULTIPROC_DIR),
so any worker's /metrics has the bridge's lag."""

import contextlib
import tempfile

from dashboard.testing import stores
from dashboard.testing.processes import free_port, wait_until
from dashboard.testing.servers import ready, signed_in_client, start_topology

from .probe import METRICS_TOKEN


class Topology:
    def __init__(self, sim, workers: int, **env):
        """`env`: more of every dashboard process's environment (loop_stalls.py's)."""
        self.stack = contextlib.ExitStack()
        try:
            redis_url = self.stack.enter_context(stores.redis_server())
            postgres = self.stack.enter_context(stores.postgres_server())
            metrics_dir = self.stack.enter_context(tempfile.TemporaryDirectory(prefix="prom-"))
            ports = [free_port() for _ in range(workers)]
            self.processes = start_topology(
                sim,
                redis_url,
                postgres.new_database(),
                ports,
                bridges=1,
                LOG_LEVEL="INFO",
                METRICS_TOKEN=METRICS_TOKEN,
                PROMETHEUS_MULTIPROC_DIR=metrics_dir,
                **env,
            )
            self.stack.callback(self.stop_processes)
            self.urls = [f"http://127.0.0.1:{port}" for port in ports]
            wait_until(lambda: all(map(ready, self.urls)), 120, "every worker ready")
        except BaseException:
            self.stack.close()
            raise
        self.bridge = self.processes["bridge-1"]
        self.workers = [self.processes[f"web-{n}"] for n in range(1, workers + 1)]

    def cookies(self) -> dict:
        """The cookies of bob (a Supervisor) signed in through the form, once for all."""
        http = signed_in_client(self.urls[0], "bob")
        cookies = dict(http.cookies.items())
        http.close()
        return cookies

    def log(self) -> str:
        return self.bridge.log()

    def stop_processes(self):
        for process in self.processes.values():
            process.stop()

    def stop(self):
        self.stack.close()
