"""Child processes and waiting: the one way the harness starts, reads, stops and polls.

A `Process` runs in a session of its own (stopping it stops what it started) and has its
output read into memory line by line as it comes, so a test can ask what it has said so
far and a failure can show its log; `run` and `run_manage` run a child to its end.
`wait_until` and `await_until` poll a condition; `let_pass` and `each_moment` are the
real time a test lets pass on purpose (an outage's length, a window watched). Tests use
these, never `subprocess` or `time.sleep` (tests/test_test_style.py).
"""

import asyncio
import contextlib
import inspect
import itertools
import json
import os
import random
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

from . import forked

ROOT = Path(__file__).resolve().parents[2]
MANAGE = [sys.executable, "manage.py"]
# A file to which each child's CPU seconds (its own and its descendants') are appended as
# it is reaped, one JSON line with its kind and the test that started it: what the suite's
# children cost, by kind and by module (docs/performance.md).
CHILD_CPU_LOG = os.environ.get("TEST_CHILD_CPU_LOG", "")


class _Popen(subprocess.Popen):
    """`subprocess.Popen` that notes its child's CPU in `CHILD_CPU_LOG` when reaping it."""

    def __init__(self, args, **kwargs):
        self.test = os.environ.get("PYTEST_CURRENT_TEST", "")
        self.started = time.monotonic()
        super().__init__(args, **kwargs)

    def _try_wait(self, wait_flags):
        if not CHILD_CPU_LOG:
            return super()._try_wait(wait_flags)
        try:
            pid, status, usage = os.wait4(self.pid, wait_flags)
        except ChildProcessError:
            return (self.pid, 0)  # reaped elsewhere (as `Popen._try_wait` assumes)
        if pid == self.pid:
            cpu, wall = usage.ru_utime + usage.ru_stime, time.monotonic() - self.started
            _note_cpu(self.args, self.test, cpu, wall)
        return (pid, status)


def _note_cpu(args: list, test: str, cpu: float, wall: float):
    manage = "manage.py" in args and args[args.index("manage.py") + 1 :]
    module = "-m" in args and args[args.index("-m") + 1 :]
    kind = f"manage.py {manage[0]}" if manage else module[0] if module else Path(args[0]).name
    line = {"kind": kind, "cpu": round(cpu, 3), "wall": round(wall, 2)}
    with open(CHILD_CPU_LOG, "a") as log:
        log.write(json.dumps(line | {"test": test.rpartition(" ")[0]}) + "\n")


def _start(args: list, *, cwd, env, stdin: bool, stderr_apart: bool):
    """A child running `args`: forked by the fork server when it can start it (forked.py),
    else by `subprocess`; text pipes to its stdout (and stderr) and, with `stdin`, from us."""
    test, started = os.environ.get("PYTEST_CURRENT_TEST", ""), time.monotonic()

    def note(args, cpu):
        if CHILD_CPU_LOG:
            _note_cpu(args, test, cpu, time.monotonic() - started)

    child = forked.popen(
        args, cwd=cwd, env=env, stdin=stdin, stderr_apart=stderr_apart, on_exit=note
    )
    return child or _Popen(
        args,
        cwd=cwd,
        env=env,
        stdin=subprocess.PIPE if stdin else None,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE if stderr_apart else subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )


def command_env(**variables) -> dict:
    """This environment for a child that reads its settings as a deployment does (without
    pytest-django's DJANGO_SETTINGS_MODULE), with `variables` set."""
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    return env | {k: str(v) for k, v in variables.items()}


def run(args, *, env=None, timeout: float = 120) -> subprocess.CompletedProcess:
    """A child run to its end in the project's folder; its stdout and stderr kept apart,
    as text. The caller checks `returncode` (a refusal to start can be the point)."""
    args = [str(a) for a in args]
    child = _start(args, cwd=ROOT, env=env, stdin=False, stderr_apart=True)
    try:
        stdout, stderr = child.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        child.kill()
        child.wait()
        raise
    return subprocess.CompletedProcess(args, child.returncode, stdout, stderr)


def run_manage(env: dict, *args, timeout: float = 120) -> subprocess.CompletedProcess:
    """`manage.py ARGS` run to its end with `env` (see `run`)."""
    return run([*MANAGE, *args], env=env, timeout=timeout)


def last_line(result: subprocess.CompletedProcess) -> str:
    """The last line a child printed (what a `shell -c` probe answers), failing with its
    stderr if it did not succeed."""
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout.strip().splitlines()[-1]


PORTS = range(20000, 32000)  # below Linux's ephemeral ports (32768-60999)
_WORKER = os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw")
_SHARE = len(PORTS) // 8
_FIRST = PORTS.start + _SHARE * (int(_WORKER) % 8 if _WORKER.isdigit() else 0)
_turns = itertools.count(random.randrange(_SHARE))  # from anywhere in the share, then on


def free_port() -> int:
    """A port nothing listens on now, from a share of `PORTS` of this test worker's own,
    taken in turn (two picks before either is bound never meet): outside the ephemeral
    range, where the kernel's pick for any outgoing connection (a browser's, a client's)
    could take it before the server binds it, and apart from the other workers' picks."""
    while True:
        port = _FIRST + next(_turns) % _SHARE
        with socket.socket() as s, contextlib.suppress(OSError):
            s.bind(("127.0.0.1", port))
            return port


class Process:
    """A child process whose output (stdout and stderr together) is kept as it comes."""

    def __init__(self, args, *, env=None, cwd=ROOT, stdin=False, on_line=None):
        self.popen = _start(
            [str(a) for a in args], cwd=cwd, env=env, stdin=stdin, stderr_apart=False
        )
        self.lines: list[str] = []
        self.read = 0  # how many lines `expect` has consumed
        self.ended = threading.Event()  # its output closed: it exited, or is about to
        self._on_line = on_line
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self):
        for line in self.popen.stdout:
            self.lines.append(line)
            if self._on_line:
                self._on_line(line)
        self.ended.set()

    @property
    def pid(self) -> int:
        return self.popen.pid

    @property
    def running(self) -> bool:
        return self.popen.poll() is None

    def log(self) -> str:
        return "".join(self.lines)

    def said(self, text: str) -> bool:
        return any(text in line for line in self.lines)

    def wait_for_line(self, text: str, timeout: float = 30) -> str:
        """The first line containing `text`, waiting for it; fails with the log if the
        process ends or `timeout` passes first."""
        deadline = time.monotonic() + timeout
        seen = 0
        while True:
            for line in self.lines[seen:]:
                if text in line:
                    return line
            seen = len(self.lines)
            if self.ended.is_set() and seen == len(self.lines):
                raise AssertionError(
                    f"{self.popen.args[:3]} ended before saying {text!r}:\n{self.log()[-3000:]}"
                )
            if time.monotonic() > deadline:
                raise AssertionError(
                    f"{self.popen.args[:3]} did not say {text!r} within "
                    f"{timeout:g} s:\n{self.log()[-3000:]}"
                )
            time.sleep(0.05)

    def expect(self, prefix: str, timeout: float = 120) -> str:
        """The next line, after those already expected, that starts with `prefix` (for a
        child driven by lines on stdin, answering with lines on stdout)."""
        deadline = time.monotonic() + timeout
        while True:
            while self.read < len(self.lines):
                line = self.lines[self.read].strip()
                self.read += 1
                if line.startswith(prefix):
                    return line
            if self.ended.is_set() and self.read == len(self.lines):
                raise RuntimeError(f"{self.popen.args[:4]} exited (code {self.popen.wait()})")
            if time.monotonic() > deadline:
                raise RuntimeError(f"{self.popen.args[:4]} did not say {prefix!r}")
            time.sleep(0.01)

    def wait(self, timeout: float = 30) -> int:
        """Its exit code, once it has ended (within `timeout`)."""
        code = self.popen.wait(timeout)
        self.ended.wait(timeout)
        return code

    def say(self, line: str):
        self.popen.stdin.write(line + "\n")
        self.popen.stdin.flush()

    def signal(self, sig: int):
        """Send `sig` to the process alone (a SIGTERM a supervisor would send)."""
        if self.running:
            self.popen.send_signal(sig)

    def kill(self):
        """SIGKILL to its whole session: a crash, as far as anyone else can tell."""
        if self.running:
            os.killpg(self.popen.pid, signal.SIGKILL)
            self.popen.wait()

    def stop(self, timeout: float = 10):
        """End of input for a child driven by lines; otherwise (or if that did not end it)
        SIGTERM to its session, then SIGKILL if it has not gone within `timeout`."""
        if self.popen.stdin and not self.popen.stdin.closed:
            with contextlib.suppress(OSError):
                self.popen.stdin.close()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.popen.wait(timeout)
        if self.running:
            os.killpg(self.popen.pid, signal.SIGTERM)
            try:
                self.popen.wait(timeout)
            except subprocess.TimeoutExpired:
                self.kill()


def wait_until(check, timeout: float = 30, what="", *, interval=0.1, ignoring=()):
    """Call `check` until it returns something true, and return that. Exceptions of the
    types in `ignoring` count as "not yet" (a server that does not listen yet). `what` names
    the condition in the failure; a callable (a process's `log`) is called for it then."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            result = check()
        except ignoring:
            result = None
        if result:
            return result
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {_said(what, check)}")
        time.sleep(interval)


async def await_until(check, timeout: float = 30, what="", *, interval=0.1, ignoring=()):
    """`wait_until` for a test's event loop: sleeps without blocking the loop. `check` may
    be a coroutine function (a query through the ORM's async API)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            result = check()
            if inspect.isawaitable(result):
                result = await result
        except ignoring:
            result = None
        if result:
            return result
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {_said(what, check)}")
        await asyncio.sleep(interval)


def let_pass(seconds: float, why: str):
    """Real time a test lets pass on purpose: an outage's length, a soak, a window in
    which something must not happen. Never a wait for something to happen (`wait_until`
    is that); `why` says which window it is."""
    assert why, "say what the time is for"
    time.sleep(max(0.0, seconds))


async def let_pass_async(seconds: float, why: str):
    """`let_pass` on a test's event loop, which runs on meanwhile."""
    assert why, "say what the time is for"
    await asyncio.sleep(max(0.0, seconds))


async def each_moment(seconds: float, every: float = 0.2):
    """Over `seconds` of real time, the monotonic time every `every` s: a window a test
    watches (what screens said during an outage), on its event loop."""
    end = time.monotonic() + seconds
    while (now := time.monotonic()) < end:
        await asyncio.sleep(min(every, end - now))
        yield time.monotonic()


def _said(what, check) -> str:
    return what() if callable(what) else what or getattr(check, "__name__", repr(check))
