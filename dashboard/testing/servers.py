"""The dashboard as real processes, exactly as `make run` or a deployment starts them.

`start_dashboard` runs `manage.py serve` (Daphne and the bridge on one event loop) on its
own SQLite file against a simulated tenant; `start_bridge` and `start_worker` run the
production pieces (`manage.py bridge`, a bare Daphne worker). Each SQLite file is a copy
of one database migrated once per set of migrations, not a `migrate` per start.
"""

import hashlib
import os
import shutil
import sys
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

from . import httpclient as http
from .processes import MANAGE, ROOT, Process, free_port, run_manage, wait_until

USER_PASSWORD = "e2e-password-123"
WEBHOOK_SECRET = "e2e-webhook-secret"
CACHE = ROOT / ".test-cache"
ADDUSER = "dashboard/accounts/management/commands/adduser.py"


def dashboard_env(sim, database_url: str, **settings) -> dict:
    """The environment of a dashboard process pointed at the simulator `sim`."""
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "UPSTREAM_BASE_URL": sim.base_url,
        "UPSTREAM_AUTH_URL": sim.auth_url,
        "UPSTREAM_ANON_KEY": sim.anon_key,
        "UPSTREAM_EMAIL": sim.email_a,
        "UPSTREAM_PASSWORD": sim.password,
        "UPSTREAM_WEBHOOK_SECRETS": WEBHOOK_SECRET,
        "REDIS_URL": "",
        **{k: str(v) for k, v in settings.items()},
    }
    env.pop("DJANGO_SETTINGS_MODULE", None)
    return env


def manage(env: dict, *args) -> str:
    """Run a management command with `env`, which must succeed; its output."""
    result = run_manage(env, *args)
    assert result.returncode == 0, f"manage.py {args[0]} failed:\n{result.stderr[-3000:]}"
    return result.stdout


def migrated_sqlite(path: Path, people: dict | None = None) -> str:
    """A migrated SQLite database at `path` (a copy of the template), with `people`
    (username: role) added by `adduser`; its URL."""
    shutil.copyfile(_peopled(_template(), people) if people else _template(), path)
    return f"sqlite:///{path}"


def _template() -> Path:
    """Migrated once per set of migrations: the file's name is a hash of them, made under
    a temporary name and renamed into place, so parallel workers never see half of one."""
    digest = hashlib.sha256(sys.executable.encode())
    for path in sorted(ROOT.glob("dashboard/*/migrations/*.py")):
        digest.update(path.read_bytes())
    return _cached(f"migrated-{digest.hexdigest()[:16]}", None, ("migrate", "--noinput", "-v0"))


def _peopled(template: Path, people: dict) -> Path:
    """The template with these people added, once per set of people (and password hasher):
    the same few people sign in to most of the tests' dashboards."""
    hasher = os.environ.get("PASSWORD_HASHERS", "")
    digest = hashlib.sha256((ROOT / ADDUSER).read_bytes())
    digest.update(repr((template.name, sorted(people.items()), USER_PASSWORD, hasher)).encode())
    name = f"people-{digest.hexdigest()[:16]}"
    return _cached(name, template, ("shell", "-c", adding(people)))


def _cached(name: str, start: Path | None, command: tuple) -> Path:
    """The database `command` makes (from a copy of `start`, or from nothing), kept in the
    cache under `name`; made under a temporary name and renamed into place, so parallel
    workers never see half of one."""
    cached = CACHE / f"{name}.sqlite3"
    if not cached.exists():
        CACHE.mkdir(exist_ok=True)
        partial = cached.with_suffix(f".{os.getpid()}.partial")
        if start:
            shutil.copyfile(start, partial)
        env = {**os.environ, "DATABASE_URL": f"sqlite:///{partial}", "REDIS_URL": ""}
        env.pop("DJANGO_SETTINGS_MODULE", None)
        manage(env, *command)
        os.replace(partial, cached)
    return cached


def adding(roles: dict, then: str = "") -> str:
    """The `manage.py shell` program that runs `adduser` for each username: role of
    `roles`, then the Python `then`."""
    calls = "".join(
        f"call_command('adduser', {name!r}, role={role!r}, password={USER_PASSWORD!r})\n"
        for name, role in roles.items()
    )
    return f"from django.core.management import call_command\n{calls}{then}"


@dataclass
class DashboardServer:
    url: str
    env: dict
    process: Process
    database: Path

    def manage(self, *args) -> str:
        """Run a management command against this server's database."""
        return manage(self.env, *args)

    def add_user(self, username: str, role: str) -> str:
        self.manage("adduser", username, "--role", role, "--password", USER_PASSWORD)
        return username

    def add_users(self, roles: dict, then: str = ""):
        """`adduser` for each username: role of `roles`, then the Python `then`, in one
        `manage.py shell` (a management command's start costs seconds on a busy machine)."""
        self.manage("shell", "-c", adding(roles, then))

    def signed_in_client(self, username: str, timeout: float = 10) -> httpx.Client:
        return signed_in_client(self.url, username, timeout)

    def session_cookie(self, username: str) -> str:
        return session_cookie(self.url, username)

    def log(self) -> str:
        return self.process.log()

    def wait_for_history(self, timeout: float = 120):
        """Until the day's and the past weeks' history is read: a test that measures sockets
        against a slow reader is not fair while the fill takes the machine's CPU."""
        said = ("today filled from the service's history", "last week's and the")
        wait_until(lambda: all(s in self.log() for s in said), timeout, "the history read")

    def stop(self, timeout: float = 10):
        """SIGTERM, and SIGKILL if it has not gone within `timeout` seconds."""
        self.process.stop(timeout)


@contextmanager
def dashboard_on(sim, *args, **kwargs):
    """`start_dashboard(sim, ...)` for a fixture that owns both processes: on leaving, the
    dashboard and the simulator stop (the simulator also when the dashboard did not start)."""
    server = None
    try:
        server = start_dashboard(sim, *args, **kwargs)
        yield server
    finally:
        if server:
            server.stop()
        sim.stop()


def start_dashboard(
    sim, tmp_path, extra_env=None, wait_ready=True, port=None, timeout=30, people=None
):
    """Start `manage.py serve` against the simulator `sim`; wait until /readyz says ready
    (or, with wait_ready=False, until it answers at all) for up to `timeout` s. A restart
    on the same `tmp_path` keeps the database. `people` (username: role) can sign in from
    the start: on a new SQLite file they come with its copy (see `migrated_sqlite`)."""
    port = port or free_port()
    database = Path(tmp_path) / "dashboard.sqlite3"
    url = f"sqlite:///{database}" if database.exists() else migrated_sqlite(database, people)
    env = dashboard_env(sim, url, PORT=port, **(extra_env or {}))
    process = Process([*MANAGE, "serve", "--port", port], env=env)
    server = DashboardServer(f"http://127.0.0.1:{port}", env, process, database)

    def answers():
        if not process.running:
            raise AssertionError(f"the dashboard exited early:\n{server.log()}")
        status = http.get(f"{server.url}/readyz", timeout=1).status_code
        return status == 200 or not wait_ready

    try:
        wait_until(answers, timeout, f"the dashboard on port {port}", ignoring=httpx.HTTPError)
    except AssertionError as failed:
        server.stop()
        raise AssertionError(f"{failed}\n{server.log()}") from None
    if people and "DATABASE_URL" in (extra_env or {}):  # a database of its own: add them
        server.add_users(people)
    return server


def start_bridge(env: dict) -> Process:
    """`manage.py bridge`, the production bridge process."""
    return Process([*MANAGE, "bridge"], env=env)


def start_worker(env: dict, port: int, *options: str) -> Process:
    """A production web worker (docs/deploy.md): our Daphne server serving config.asgi, no
    bridge inside; `options` are Daphne's (`--proxy-headers`)."""
    web = [sys.executable, "-m", "dashboard.live.web"]
    return Process(
        [*web, "-b", "127.0.0.1", "-p", port, *options, "config.asgi:application"], env=env
    )


def start_topology(sim, redis_url, database_url, ports, bridges=2, people=None, **settings) -> dict:
    """The production topology on Redis and `database_url` (migrated here): `bridges`
    bridge processes (bridge-1..) and a Daphne worker per port (web-1..); bob, a Supervisor,
    and the username: role of `people` can sign in."""
    env = dashboard_env(sim, database_url, REDIS_URL=redis_url, **settings)
    adds = "".join(
        f"call_command('adduser', {name!r}, role={role!r}, password={USER_PASSWORD!r})\n"
        for name, role in ({"bob": "supervisor"} | (people or {})).items()
    )
    manage(  # one process: a management command's start costs seconds on a busy machine
        env,
        "shell",
        "-c",
        "from django.core.management import call_command\n"
        f"call_command('migrate', interactive=False, verbosity=0)\n{adds}",
    )
    processes = {f"bridge-{n}": start_bridge(env) for n in range(1, bridges + 1)}
    processes |= {f"web-{n}": start_worker(env, port) for n, port in enumerate(ports, 1)}
    return processes


def ready(url: str) -> bool:
    """Whether the dashboard at `url` says it is ready (False when it does not answer)."""
    try:
        return http.get(f"{url}/readyz", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


def signed_in_client(url: str, username: str, timeout: float = 10) -> httpx.Client:
    """An HTTP client signed in through the real sign-in form, as a browser is."""
    client = http.client(base_url=url, timeout=timeout)
    client.get("/accounts/login/")
    client.post("/accounts/login/", data=_sign_in_form(client, username))
    assert "sessionid" in client.cookies, "sign-in failed"
    return client


def session_cookie(url: str, username: str) -> str:
    """A `Cookie` header's value (session and CSRF cookies) of `username` signed in
    through the form, for a websocket or a raw request (`Cookie: ...`). From a test's
    event loop: `await asyncio.to_thread(session_cookie, url, username)`."""
    client = signed_in_client(url, username)
    client.close()
    return "; ".join(f"{k}={v}" for k, v in client.cookies.items())


def _sign_in_form(client, username: str) -> dict:
    return {
        "username": username,
        "password": USER_PASSWORD,
        "csrfmiddlewaretoken": client.cookies["csrftoken"],
    }
