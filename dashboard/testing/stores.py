"""A real Redis and a real PostgreSQL on 127.0.0.1, each from a temporary directory on a
free port, removed when stopped. Nothing is skipped: a missing server binary fails the
test and names the script that installs it."""

import contextlib
import glob
import os
import shutil
import signal
import subprocess
import tempfile
from dataclasses import dataclass
from itertools import count

import psycopg
import redis

from .processes import Process, free_port, run_manage, wait_until

INSTALL_HINT = "run `bash .ci/system-deps` (as root) to install it from Debian's packages"
PG_USER = "dashboard"
_databases = count(1)


class MissingServer(RuntimeError):
    pass


def binary(name: str, *extra_dirs: str) -> str:
    for where in [None, *extra_dirs]:
        found = shutil.which(name, path=where)
        if found:
            return found
    raise MissingServer(f"`{name}` is not installed: {INSTALL_HINT}")


def _started(process: Process, check, what: str):
    try:
        wait_until(lambda: process.running and check(), 30, what, ignoring=Exception)
    except AssertionError:
        process.stop()
        raise AssertionError(f"{what} did not start:\n{process.log()[-3000:]}") from None


@contextlib.contextmanager
def redis_server():
    """A fresh, empty Redis with no persistence, for the `with` block; its URL."""
    server, port = binary("redis-server"), free_port()
    workdir = tempfile.mkdtemp(prefix="dashboard-redis-")
    process = Process(
        [server, "--port", port, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
        + ["--dir", workdir]
    )
    url = f"redis://127.0.0.1:{port}/0"
    try:
        _started(process, lambda: redis.Redis.from_url(url).ping(), "redis-server")
        yield url
    finally:
        process.stop()
        shutil.rmtree(workdir, ignore_errors=True)


@dataclass
class Postgres:
    host: str
    port: int

    def url(self, database: str) -> str:
        return f"postgres://{PG_USER}@{self.host}:{self.port}/{database}"

    migrated: str = ""  # the template, once `new_database` has migrated it

    def new_database(self) -> str:
        """A migrated database of its own for one test; its URL. It is a copy of a template
        migrated once per cluster: a `migrate` of every app costs many seconds of CPU, a
        copy a fraction of one (a test's own `migrate` then finds nothing to do)."""
        if not self.migrated:
            template = f"template_{os.getpid()}"
            self._create(template)
            env = {**os.environ, "DATABASE_URL": self.url(template), "REDIS_URL": ""}
            env.pop("DJANGO_SETTINGS_MODULE", None)
            result = run_manage(env, "migrate", "--noinput", "-v0")
            assert result.returncode == 0, f"migrate failed:\n{result.stderr[-3000:]}"
            self.migrated = template
        name = f"test_{os.getpid()}_{next(_databases)}"
        self._create(f'"{name}" TEMPLATE "{self.migrated}"')
        return self.url(name)

    def _create(self, what: str):
        with psycopg.connect(self.url("postgres"), autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {what}")


@contextlib.contextmanager
def postgres_server():
    """A PostgreSQL cluster for the `with` block (initdb takes seconds; databases are cheap).

    initdb refuses to run as root, so as root the cluster belongs to the `postgres` system
    user that Debian's package creates, in a directory that user owns."""
    pg_dirs = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=_version, reverse=True)
    initdb, postgres = binary("initdb", *pg_dirs), binary("postgres", *pg_dirs)
    as_user: list[str] = []
    workdir = tempfile.mkdtemp(prefix="dashboard-pg-")
    if os.geteuid() == 0:
        as_user = ["runuser", "-u", "postgres", "--"]
        shutil.chown(workdir, "postgres")
    data, port = os.path.join(workdir, "data"), free_port()
    subprocess.run(
        [*as_user, initdb, "-D", data, "-U", PG_USER, "--auth=trust", "-E", "UTF8", "--no-sync"],
        check=True,
        capture_output=True,
    )
    process = Process(
        [*as_user, postgres, "-D", data, "-p", port, "-h", "127.0.0.1", "-k", workdir]
        + ["-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"]
    )
    server = Postgres("127.0.0.1", port)
    try:
        _started(process, lambda: psycopg.connect(server.url("postgres")).close() or 1, "postgres")
        yield server
    finally:
        process.stop()
        shutil.rmtree(workdir, ignore_errors=True)


def _version(path: str) -> float:
    try:
        return float(path.split("/")[-2])
    except ValueError:
        return 0.0


class RestartableRedis:
    """A Redis on a fixed port that can be stopped and started again (empty, as a Redis
    without persistence comes back): a store's outage."""

    def __init__(self, workdir):
        self.port, self.workdir = free_port(), workdir
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process = None
        self.start()

    def start(self):
        self.process = Process(
            [binary("redis-server"), "--port", self.port, "--bind", "127.0.0.1"]
            + ["--save", "", "--appendonly", "no", "--dir", self.workdir]
        )
        wait_until(lambda: redis.Redis.from_url(self.url).ping(), 30, "redis", ignoring=Exception)

    def stop(self):
        self.process.stop()


class RestartablePostgres:
    """A PostgreSQL cluster on a fixed port that can be stopped (fast shutdown: sessions
    cut, as a restart does) and started again with its data; one database, its URL."""

    def __init__(self):
        pg_dirs = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=_version, reverse=True)
        self.postgres = binary("postgres", *pg_dirs)
        self.as_user = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        self.workdir = tempfile.mkdtemp(prefix="dashboard-pg-")
        if self.as_user:
            shutil.chown(self.workdir, "postgres")
        self.data, self.port = os.path.join(self.workdir, "data"), free_port()
        subprocess.run(
            [*self.as_user, binary("initdb", *pg_dirs), "-D", self.data, "-U", PG_USER]
            + ["--auth=trust", "-E", "UTF8", "--no-sync"],
            check=True,
            capture_output=True,
        )
        self.start()
        with psycopg.connect(self.server_url("postgres"), autocommit=True) as conn:
            conn.execute('CREATE DATABASE "dashboard"')
        self.url = self.server_url("dashboard")

    def server_url(self, database: str) -> str:
        return f"postgres://{PG_USER}@127.0.0.1:{self.port}/{database}"

    def start(self):
        self.process = Process(
            [*self.as_user, self.postgres, "-D", self.data, "-p", self.port, "-h", "127.0.0.1"]
            + ["-k", self.workdir, "-c", "fsync=off", "-c", "full_page_writes=off"]
        )
        check = lambda: psycopg.connect(self.server_url("postgres")).close() or 1  # noqa: E731
        wait_until(check, 30, "postgres", ignoring=Exception)

    def stop(self):
        """SIGINT to the cluster: a fast shutdown, every session cut."""
        if self.process.running:
            os.killpg(self.process.pid, signal.SIGINT)
            self.process.popen.wait(30)

    def remove(self):
        self.stop()
        shutil.rmtree(self.workdir, ignore_errors=True)
