"""The pytest worker's side of the fork server (forkserver.py): Python children started by
forking a process that has the libraries imported, behind the part of `subprocess.Popen`
that `processes` uses (pid, poll, wait, signals, pipes, return code).

One fork server per worker, started with its first child. A child it cannot start as
`python` would (another folder, another interpreter, interpreter options, an environment
that differs in what the interpreter reads at its start) is left to `subprocess`, and so
is every child when TEST_FORK_SERVER=0.
"""

import atexit
import contextlib
import json
import os
import socket
import subprocess
import sys
import threading
import time

from .forkserver import at_start, send_fds

MAX_REQUEST = 100_000  # bytes: a message on the socket must fit in its buffer
_servers: dict[int, "ForkServer"] = {}  # by the worker's pid
_lock = threading.Lock()


def popen(args: list, *, cwd, env, stdin: bool, stderr_apart: bool, on_exit):
    """A `ForkedChild` running `args`, or None when the fork server cannot start it."""
    env = dict(os.environ if env is None else env)
    if not _eligible(args, cwd, env):
        return None
    with _lock:
        server = _servers.get(os.getpid()) or _servers.setdefault(os.getpid(), ForkServer(cwd))
    if not server.alive or at_start(env) != server.at_start:
        return None  # (a server that has gone is not started again)
    return server.start(args, cwd, env, stdin, stderr_apart, on_exit)


def _eligible(args: list, cwd, env: dict) -> bool:
    if os.environ.get("TEST_FORK_SERVER", "1") == "0" or len(args) < 2:
        return False
    program = args[1] == "manage.py" or (args[1] == "-m" and len(args) > 2)
    return args[0] == sys.executable and program and os.path.isdir(cwd)


class ForkServer:
    def __init__(self, cwd):
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.at_start = at_start(os.environ)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "dashboard.testing.forkserver", str(theirs.fileno())],
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,  # a worker's own stdout may be its channel to pytest
            pass_fds=[theirs.fileno()],
            start_new_session=True,  # a test's killpg of its child's session never reaches it
        )
        theirs.close()
        atexit.register(self.close)
        self.sock = ours
        self.alive = True
        self.requests = 0
        self.starting: dict[int, ForkedChild] = {}
        self.children: dict[int, ForkedChild] = {}
        self.lock = threading.Lock()
        threading.Thread(target=self._listen, daemon=True).start()

    def close(self):
        """At the worker's exit: the server ends, and is reaped, so that its CPU and its
        children's counts in the suite's (a `time make test`)."""
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)  # what wakes the listener's `recv`
        self.sock.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(10)

    def start(self, args, cwd, env, stdin, stderr_apart, on_exit) -> "ForkedChild | None":
        request = {"args": args[1:], "cwd": str(cwd), "env": env, "session": True}
        if len(json.dumps(request)) > MAX_REQUEST:
            return None
        child = ForkedChild(args, on_exit)
        with self.lock:
            self.requests += 1
            ident = self.requests
            self.starting[ident] = child
        theirs = []
        if stdin:
            stdin_r, stdin_w = os.pipe()
            child.stdin = os.fdopen(stdin_w, "w")
            theirs.append(stdin_r)
        else:
            theirs.append(os.open(os.devnull, os.O_RDONLY))
        out_r, out_w = os.pipe()
        child.stdout = os.fdopen(out_r, "r")
        theirs.append(out_w)
        if stderr_apart:
            err_r, err_w = os.pipe()
            child.stderr = os.fdopen(err_r, "r")
            theirs.append(err_w)
        else:
            theirs.append(out_w)
        request["id"] = ident
        try:
            send_fds(self.sock, json.dumps(request).encode(), theirs)
        except OSError:
            self.alive = False
            return None
        finally:
            for fd in set(theirs):
                os.close(fd)
        if not child.started.wait(60):
            raise RuntimeError(f"the fork server did not start {args[:4]}")
        return child if child.pid is not None else None  # it has gone: `subprocess` then

    def _listen(self):
        while True:
            try:
                message = self.sock.recv(1 << 16)
            except OSError:
                message = b""
            if not message:
                break
            report = json.loads(message)
            with self.lock:
                if "id" in report:
                    child = self.starting.pop(report["id"])
                    child.pid = report["pid"]
                    self.children[child.pid] = child
                    child.started.set()
                    continue
                child = self.children.pop(report["pid"], None)
            if child:
                child.exited(report["status"], report["cpu"])
        self.alive = False  # gone: what it had started can no longer be followed
        with self.lock:
            for child in [*self.starting.values(), *self.children.values()]:
                child.started.set()
                child.exited(None, 0.0)
            self.starting.clear()
            self.children.clear()


class ForkedChild:
    """What `processes` uses of `subprocess.Popen`, for a child of the fork server."""

    def __init__(self, args, on_exit):
        self.args = args
        self.pid = None
        self.returncode = None
        self.stdin = self.stdout = self.stderr = None
        self.started = threading.Event()
        self._ended = threading.Event()
        self._on_exit = on_exit

    def exited(self, status, cpu: float):
        self.returncode = -1 if status is None else os.waitstatus_to_exitcode(status)
        if self._on_exit:
            self._on_exit(self.args, cpu)
        self._ended.set()

    def poll(self):
        return self.returncode

    def wait(self, timeout=None):
        if not self._ended.wait(timeout):
            raise subprocess.TimeoutExpired(self.args, timeout)
        return self.returncode

    def send_signal(self, sig: int):
        if self.returncode is None:
            os.kill(self.pid, sig)

    def kill(self):
        self.send_signal(9)

    def communicate(self, timeout=None) -> tuple[str, str]:
        """Its whole stdout and stderr, and its end (within `timeout`)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        read = {}
        readers = [
            threading.Thread(target=lambda n=name, f=pipe: read.__setitem__(n, f.read()))
            for name, pipe in (("out", self.stdout), ("err", self.stderr))
        ]
        for reader in readers:
            reader.daemon = True
            reader.start()
        for reader in readers:
            reader.join(None if deadline is None else max(0.0, deadline - time.monotonic()))
        if any(reader.is_alive() for reader in readers):
            raise subprocess.TimeoutExpired(self.args, timeout)
        self.wait(None if deadline is None else max(0.0, deadline - time.monotonic()))
        self.stdout.close()
        self.stderr.close()
        return read["out"], read["err"]
