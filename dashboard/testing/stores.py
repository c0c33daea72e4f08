"""Pytest plugin: a real Redis and a real PostgreSQL on 127.0.0.1, started for the run.

Each runs from a temporary directory on a free port and is stopped (and its files removed)
afterwards. Nothing is skipped: when the server binaries are missing, the test fails and
names the script that installs them.
"""

import glob
import os
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from itertools import count

import psycopg
import pytest
import redis

from tests.simulator_process import free_port, stop_process

INSTALL_HINT = "run `bash .ci/system-deps` (as root) to install it from Debian's packages"
PG_USER = "dashboard"
_databases = count(1)


def binary(name: str, *extra_dirs: str) -> str:
    for where in [None, *extra_dirs]:
        found = shutil.which(name, path=where)
        if found:
            return found
    pytest.fail(f"`{name}` is not installed: {INSTALL_HINT}", pytrace=False)


def wait_for(check, what: str, process: subprocess.Popen, log_path: str, timeout=30.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            break
        try:
            check()
            return
        except Exception:
            time.sleep(0.1)
    with open(log_path, errors="replace") as f:
        pytest.fail(f"{what} did not start:\n{f.read()[-3000:]}", pytrace=False)


@pytest.fixture
def redis_url():
    """A fresh, empty Redis with no persistence; its URL."""
    server = binary("redis-server")
    port = free_port()
    workdir = tempfile.mkdtemp(prefix="dashboard-redis-")
    log_path = os.path.join(workdir, "redis.log")
    with open(log_path, "w") as log:
        process = subprocess.Popen(
            [server, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly"]
            + ["no", "--dir", workdir],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    url = f"redis://127.0.0.1:{port}/0"
    wait_for(lambda: redis.Redis.from_url(url).ping(), "redis-server", process, log_path)
    yield url
    stop_process(process)
    shutil.rmtree(workdir, ignore_errors=True)


@dataclass
class Postgres:
    host: str
    port: int

    def url(self, database: str) -> str:
        return f"postgres://{PG_USER}@{self.host}:{self.port}/{database}"

    def new_database(self) -> str:
        """An empty database of its own for one test; its URL."""
        name = f"test_{os.getpid()}_{next(_databases)}"
        with psycopg.connect(self.url("postgres"), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)


@pytest.fixture(scope="session")
def postgres_server():
    """One PostgreSQL cluster for the run (initdb takes seconds; databases are cheap).

    initdb refuses to run as root, so as root the cluster belongs to the `postgres` system
    user that Debian's package creates, in a directory that user owns."""
    pg_dirs = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=_version, reverse=True)
    initdb, postgres = binary("initdb", *pg_dirs), binary("postgres", *pg_dirs)
    as_user: list[str] = []
    workdir = tempfile.mkdtemp(prefix="dashboard-pg-")
    if os.geteuid() == 0:
        as_user = ["runuser", "-u", "postgres", "--"]
        shutil.chown(workdir, "postgres")
    data, log_path, port = (
        os.path.join(workdir, "data"),
        os.path.join(workdir, "pg.log"),
        free_port(),
    )
    subprocess.run(
        [*as_user, initdb, "-D", data, "-U", PG_USER, "--auth=trust", "-E", "UTF8", "--no-sync"],
        check=True,
        capture_output=True,
    )
    with open(log_path, "w") as log:
        process = subprocess.Popen(
            [*as_user, postgres, "-D", data, "-p", str(port), "-h", "127.0.0.1", "-k", workdir]
            + ["-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    server = Postgres("127.0.0.1", port)
    wait_for(lambda: psycopg.connect(server.url("postgres")).close(), "postgres", process, log_path)
    yield server
    stop_process(process)
    shutil.rmtree(workdir, ignore_errors=True)


@pytest.fixture
def postgres_url(postgres_server):
    """A fresh, empty PostgreSQL database for one test; its URL."""
    return postgres_server.new_database()


def _version(path: str) -> float:
    try:
        return float(path.split("/")[-2])
    except ValueError:
        return 0.0
