"""The simulated tenant as a real process on 127.0.0.1: the tests' and benchmarks' peer."""

import re
from dataclasses import dataclass

from . import httpclient as http
from .processes import MANAGE, Process, free_port

READY = "simulator ready"


@dataclass
class Sim:
    port: int
    process: Process
    anon_key: str = "sim-anon-key"
    password: str = "sim-password"
    email_a: str = "svc-a@sim.local"
    email_b: str = "svc-b@sim.local"
    email_agent: str = "agent-a@sim.local"
    email_mfa: str = "mfa-a@sim.local"
    org_a: str = ""
    org_b: str = ""

    @property
    def auth_url(self):
        return f"http://127.0.0.1:{self.port}"

    @property
    def base_url(self):
        return f"{self.auth_url}/api"

    @property
    def control_url(self):
        return f"{self.auth_url}/_control"

    def control(self, control, **body):
        r = http.post(f"{self.control_url}/{control}", json=body, timeout=10)
        r.raise_for_status()
        return r.json()

    def stats(self):
        return http.get(f"{self.control_url}/stats", timeout=10).json()

    def agents(self):
        return http.get(f"{self.control_url}/agents", timeout=10).json()

    def sign_in(self, email=None):
        r = http.post(
            f"{self.auth_url}/auth/v1/token?grant_type=password",
            headers={"apikey": self.anon_key},
            json={"email": email or self.email_a, "password": self.password},
            timeout=10,
        )
        r.raise_for_status()
        return r.json()

    def get(self, path, token, **params):
        return http.get(
            f"{self.base_url}{path}",
            headers={"Authorization": f"Bearer {token}"},
            params=params,
            timeout=10,
        )

    def log(self):
        return self.process.log()

    def stop(self):
        self.process.stop(5)


def start_simulator(*args, port=None) -> Sim:
    """Start `manage.py simulate ARGS` on a free port and wait for its ready line."""
    port = port or free_port()
    if "--history-days" not in args:  # a test's day starts empty unless it asks for a past
        args = (*args, "--history-days", "0")
    process = Process([*MANAGE, "simulate", "--port", port, *args])
    sim = Sim(port, process)
    try:
        process.wait_for_line(READY, 30)
    except AssertionError:
        sim.stop()
        raise
    text = sim.log()
    sim.org_a = re.search(r"organisation A: (\S+)", text).group(1)
    sim.org_b = re.search(r"organisation B: (\S+)", text).group(1)
    return sim
