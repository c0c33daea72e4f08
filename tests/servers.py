"""Pytest plugin: the whole dashboard as a real process, and a browser to look at it.

`dashboard_server` runs `manage.py serve` (Daphne with the bridge on one event loop) on its
own SQLite file, pointed at a simulated tenant started for the test, exactly as `make run`
does, so end-to-end tests drive the product through its public faces only.
"""

import os
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest

from tests.simulator_process import free_port, stop_process

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "test-artifacts"
USER_PASSWORD = "e2e-password-123"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@dataclass
class DashboardServer:
    url: str
    env: dict
    process: subprocess.Popen
    output: list = field(default_factory=list)

    def manage(self, *args):
        """Run a management command against this server's database."""
        return subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=ROOT,
            env=self.env,
            check=True,
            capture_output=True,
            text=True,
        ).stdout

    def add_user(self, username, role):
        self.manage("adduser", username, "--role", role, "--password", USER_PASSWORD)
        return username

    def signed_in_client(self, username, timeout=10):
        """An HTTP client signed in through the real sign-in form."""
        client = httpx.Client(base_url=self.url, timeout=timeout)
        client.get("/accounts/login/")
        client.post(
            "/accounts/login/",
            data={
                "username": username,
                "password": USER_PASSWORD,
                "csrfmiddlewaretoken": client.cookies["csrftoken"],
            },
        )
        assert "sessionid" in client.cookies, "sign-in failed"
        return client

    def log(self):
        return "".join(self.output)

    def stop(self):
        stop_process(self.process)


def start_dashboard(sim, tmp_path, extra_env=None, wait_ready=True, port=None):
    """Start `manage.py serve` against the simulator `sim`; wait until /readyz says ready
    (or, with wait_ready=False, until it answers at all)."""
    port = port or free_port()
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{tmp_path / 'dashboard.sqlite3'}",
        "UPSTREAM_BASE_URL": sim.base_url,
        "UPSTREAM_AUTH_URL": sim.auth_url,
        "UPSTREAM_ANON_KEY": sim.anon_key,
        "UPSTREAM_EMAIL": sim.email_a,
        "UPSTREAM_PASSWORD": sim.password,
        "UPSTREAM_WEBHOOK_SECRETS": "e2e-webhook-secret",
        "PORT": str(port),
        "REDIS_URL": "",
        **(extra_env or {}),
    }
    env.pop("DJANGO_SETTINGS_MODULE", None)
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT, env=env, check=True
    )
    process = subprocess.Popen(
        [sys.executable, "manage.py", "serve", "--port", str(port)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    server = DashboardServer(f"http://127.0.0.1:{port}", env, process)
    threading.Thread(target=lambda: server.output.extend(process.stdout), daemon=True).start()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the dashboard exited early:\n{server.log()}")
        try:
            status = httpx.get(f"{server.url}/readyz", timeout=1).status_code
            if status == 200 or not wait_ready:
                return server
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    server.stop()
    raise RuntimeError(f"the dashboard was not ready within 30 s:\n{server.log()}")


@pytest.fixture
def dashboard_server(simulator, tmp_path):
    server = start_dashboard(simulator, tmp_path)
    yield server
    server.stop()


@pytest.fixture(scope="module")
def browser():
    """Chromium for one test module: Playwright's sync API holds an event loop while it
    runs, which the asyncio tests of later modules must not find."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1600, "height": 1000})
    pg = context.new_page()
    yield pg
    context.close()


def sign_in(page, server, username):
    page.goto(f"{server.url}/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", USER_PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(f"{server.url}/")


def screenshot(page, name):
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=False)
    return path
