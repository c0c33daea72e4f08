"""Pytest plugin: the simulated tenant as a real process on 127.0.0.1, the tests' peer."""

import os
import re
import signal
import socket
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest

ROOT = Path(__file__).resolve().parent.parent
READY = "simulator ready"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Sim:
    port: int
    process: subprocess.Popen
    output: list = field(default_factory=list)
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
        r = httpx.post(f"{self.control_url}/{control}", json=body, timeout=10)
        r.raise_for_status()
        return r.json()

    def stats(self):
        return httpx.get(f"{self.control_url}/stats", timeout=10).json()

    def agents(self):
        return httpx.get(f"{self.control_url}/agents", timeout=10).json()

    def sign_in(self, email=None):
        r = httpx.post(
            f"{self.auth_url}/auth/v1/token?grant_type=password",
            headers={"apikey": self.anon_key},
            json={"email": email or self.email_a, "password": self.password},
            timeout=10,
        )
        r.raise_for_status()
        return r.json()

    def get(self, path, token, **params):
        return httpx.get(
            f"{self.base_url}{path}",
            headers={"Authorization": f"Bearer {token}"},
            params=params,
            timeout=10,
        )

    def log(self):
        return "".join(self.output)

    def stop(self):
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()


def start_simulator(*args, port=None) -> Sim:
    """Start `manage.py simulate ARGS` on a free port and wait for its ready line."""
    port = port or free_port()
    process = subprocess.Popen(
        [sys.executable, "manage.py", "simulate", "--port", str(port), *map(str, args)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    sim = Sim(port, process)
    ready = threading.Event()

    def drain():
        for line in process.stdout:
            sim.output.append(line)
            if READY in line:
                ready.set()
        ready.set()

    threading.Thread(target=drain, daemon=True).start()
    if not ready.wait(30) or process.poll() is not None:
        sim.stop()
        raise RuntimeError(f"the simulator did not start:\n{sim.log()}")
    text = sim.log()
    sim.org_a = re.search(r"organisation A: (\S+)", text).group(1)
    sim.org_b = re.search(r"organisation B: (\S+)", text).group(1)
    return sim


@pytest.fixture
def sim_factory():
    started = []

    def make(*args, **kwargs):
        sim = start_simulator(*args, **kwargs)
        started.append(sim)
        return sim

    yield make
    for sim in started:
        sim.stop()


@pytest.fixture
def simulator(sim_factory):
    """A simulated tenant with its fault controls, the behaviour model running."""
    return sim_factory("--faults", "--seed", "7")


def stop_process(process: subprocess.Popen):
    """SIGTERM, then SIGKILL if it has not gone in 10 s."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
