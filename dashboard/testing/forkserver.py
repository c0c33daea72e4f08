"""A fork server: Python children start from a process that has already imported the
heavy libraries, instead of importing them again each (most of a start's CPU).

`processes.Process` and `processes.run` hand it `python manage.py ...` and `python -m
module ...` children: it forks, and the child takes its own environment, folder, session
and standard streams, then runs the program as `python` would, as `__main__`, and exits as
an interpreter does (exceptions printed, atexit, threads joined). Only libraries are
imported beforehand, none of the product's modules: no settings read, no event loop, no
Twisted reactor installed, no thread started, so each child configures itself from its
own environment as a deployment's process does. The server reports each child's pid, and
its exit status and CPU seconds when it has reaped it. It exits when its pytest worker
closes the socket.
"""

import array
import atexit
import contextlib
import gc
import importlib
import io
import json
import os
import runpy
import select
import signal
import socket
import sys
import threading

# Imported once here; each entry only if importing it has no effect that a child could
# notice (see `_preload`). What a `manage.py` child and the servers spend their start on.
PRELOAD = [
    "django.core.management",
    "django.db.models",
    "django.db.migrations",
    "django.db.backends.sqlite3.base",
    "django.db.backends.postgresql.base",
    "django.http",
    "django.urls",
    "django.shortcuts",
    "django.forms",
    "django.template.defaulttags",
    "django.template.defaultfilters",
    "django.core.handlers.asgi",
    "django.core.serializers.json",
    "django.middleware.cache",
    "django.contrib.admin",
    "django.contrib.admin.checks",
    "django.contrib.auth.decorators",
    "django.contrib.auth.hashers",
    "django.contrib.auth.password_validation",
    "django.contrib.contenttypes.checks",
    "django.contrib.messages.api",
    "django.contrib.sessions.backends.db",
    "django.contrib.staticfiles.finders",
    "django.contrib.staticfiles.handlers",
    "asgiref.sync",
    "environ",
    "channels.auth",
    "channels.db",
    "channels.generic.websocket",
    "channels.layers",
    "channels.middleware",
    "channels.routing",
    "whitenoise.middleware",
    "whitenoise.storage",
    "csp.middleware",
    "twisted.internet.asyncioreactor",  # the module: its `install` is the child's to call
    "twisted.internet.endpoints",
    "twisted.application.service",
    "twisted.web.http",
    "autobahn.twisted.websocket",
    "autobahn.twisted.rawsocket",
    "autobahn.twisted.wamp",
    "autobahn.websocket.compress_deflate",
    "daphne.access",
    "daphne.http_protocol",
    "daphne.ws_protocol",
    "socketio",
    "engineio",
    "aiohttp",
    "aiohttp.web",
    "redis.asyncio",
    "httpx",
    "uvicorn",
    "uvicorn.config",
    "psycopg",
    "prometheus_client",
    "cryptography.hazmat.primitives.kdf.pbkdf2",
    "packaging.version",
    "wsgiref.simple_server",
    "mmap",
    "resource",
]
# Environment variables the interpreter or a preloaded library reads once, at its start
# (psycopg its implementation, prometheus_client its multiprocess mode): a child whose
# environment differs in one of these is started the ordinary way.
AT_START = ("PYTHON", "AIOHTTP_", "PSYCOPG", "PROMETHEUS_")
MAX_FDS = 3


def at_start(env: dict) -> dict:
    return {k: v for k, v in env.items() if k.startswith(AT_START)}


def _preload():
    for name in PRELOAD:
        try:
            importlib.import_module(name)
        except ImportError:
            continue
    from django.conf import settings

    assert not settings.configured, "a preloaded module read the settings"
    assert "twisted.internet.reactor" not in sys.modules, "a preloaded module chose a reactor"


def serve(sock: socket.socket):
    """Fork a child for each request on `sock`; report pids and exits. Returns only in a
    child, with (args, cwd) of the program it is to run."""
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a Ctrl-C reaches the worker, which ends us
    gc.freeze()  # the collector leaves what is shared alone: its pages stay shared in children
    while True:
        ready, _, _ = select.select([sock, wake_r], [], [])
        if wake_r in ready:
            os.read(wake_r, 512)
            _reap(sock)
        if sock in ready:
            try:
                message, fds, _, _ = socket.recv_fds(sock, 1 << 20, MAX_FDS)
            except ConnectionError:
                message = b""
            if not message:  # the worker has gone: what has ended is reaped, and we end
                _reap(sock)
                return None
            request = json.loads(message)
            pid = os.fork()
            if pid == 0:
                signal.set_wakeup_fd(-1)
                signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                signal.signal(signal.SIGINT, signal.default_int_handler)  # as `python` has it
                os.close(wake_r)
                os.close(wake_w)
                return _become(request, fds, sock)
            for fd in fds:
                os.close(fd)
            sock.send(json.dumps({"id": request["id"], "pid": pid}).encode())


def _reap(sock: socket.socket):
    while True:
        try:
            pid, status, usage = os.wait4(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        cpu = usage.ru_utime + usage.ru_stime
        with contextlib.suppress(OSError):  # the worker has gone
            sock.send(json.dumps({"pid": pid, "status": status, "cpu": cpu}).encode())


def _become(request: dict, fds: list, sock: socket.socket):
    """In the child: its session, streams, folder and environment, as `Popen` gives them."""
    sock.close()
    if request["session"]:
        os.setsid()
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
    os.closerange(3, os.sysconf("SC_OPEN_MAX"))
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    unbuffered = bool(os.environ.get("PYTHONUNBUFFERED"))
    stdin = io.BufferedReader(io.FileIO(0, "rb", closefd=False))
    sys.stdin = io.TextIOWrapper(stdin, encoding=sys.stdin.encoding, errors=sys.stdin.errors)
    sys.stdout = _stream(1, sys.stdout, unbuffered)
    sys.stderr = _stream(2, sys.stderr, unbuffered, line_buffering=True)
    sys.__stdin__, sys.__stdout__, sys.__stderr__ = sys.stdin, sys.stdout, sys.stderr
    return request["args"], request["cwd"]


def _stream(fd: int, like, unbuffered: bool, line_buffering=False):
    raw = io.FileIO(fd, "wb", closefd=False)
    binary = raw if unbuffered else io.BufferedWriter(raw)
    return io.TextIOWrapper(
        binary,
        encoding=like.encoding,
        errors=like.errors,
        line_buffering=line_buffering,
        write_through=unbuffered,
    )


def run_program(args: list, cwd: str):
    """`python ARGS` in this process, a script or `-m module` as `__main__`, ended as the
    interpreter ends a program, short of freeing every object one by one (which, in a
    fork, would copy each page it shares with the server only to free it)."""
    try:
        if args[0] == "-m":
            sys.argv = [args[1], *args[2:]]
            sys.path[0] = cwd
            runpy.run_module(args[1], run_name="__main__", alter_sys=True)
        else:
            sys.argv = list(args)
            sys.path[0] = os.path.dirname(os.path.abspath(os.path.join(cwd, args[0])))
            runpy.run_path(args[0], run_name="__main__")
        code = 0
    except SystemExit as exit:
        code = _exit_code(exit.code)
    except KeyboardInterrupt:
        code = -signal.SIGINT
    except BaseException:
        sys.excepthook(*sys.exc_info())
        code = 1
    threading._shutdown()  # as the interpreter does: non-daemon threads, then atexit
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # closed by the program
            stream.flush()
    if code < 0:  # ended by a signal, as `python` ends itself on an unhandled Ctrl-C
        signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
    os._exit(code)


def _exit_code(code) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


def send_fds(sock: socket.socket, message: bytes, fds: list):
    sock.sendmsg([message], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))])


if __name__ == "__main__":
    _preload()
    job = serve(socket.socket(fileno=int(sys.argv[1])))
    if job:  # in a child: its program, as the main program
        run_program(*job)
