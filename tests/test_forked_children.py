"""Children started by the harness's fork server behave as `python manage.py ...` started
afresh: their own environment, folder, arguments, streams, session and exit status, and
settings read from their own environment, not from the server's."""

import os
import signal

import pytest

from dashboard.testing.processes import MANAGE, Process, command_env, run_manage, wait_until

PROBE = """
import os, sys, threading
from django.conf import settings
print("argv", sys.argv)
print("cwd", os.getcwd())
print("sid", os.getsid(0) == os.getpid())
print("secret", settings.SECRET_KEY)
print("reactor", "twisted.internet.reactor" in sys.modules)
print("to stderr", file=sys.stderr)
"""


FORKING = os.environ.get("TEST_FORK_SERVER", "1") != "0"


def env(**variables):
    return command_env(REDIS_URL="", **variables)


@pytest.mark.skipif(not FORKING, reason="TEST_FORK_SERVER=0 starts every child afresh")
def test_a_command_is_forked_by_the_fork_server_not_started_by_the_test():
    probe = run_manage(env(), "shell", "-c", "import os; print('parent', os.getppid())")
    assert probe.returncode == 0, probe.stderr
    assert f"parent {os.getpid()}\n" not in probe.stdout  # the fork server's child, not ours


def test_a_forked_command_sees_its_own_arguments_folder_session_and_settings():
    first = run_manage(env(SECRET_KEY="first-" + "k" * 40), "shell", "-c", PROBE)
    second = run_manage(env(SECRET_KEY="second-" + "k" * 40), "shell", "-c", PROBE)
    assert first.returncode == 0, first.stderr
    assert f"argv ['manage.py', 'shell', '-c', {PROBE!r}]" in first.stdout
    assert f"cwd {os.getcwd()}" in first.stdout and "sid True" in first.stdout
    assert "reactor False" in first.stdout
    assert "secret first-" in first.stdout and "secret second-" in second.stdout
    assert first.stderr == "to stderr\n"


def test_a_forked_command_ends_with_the_status_python_would_give():
    assert run_manage(env(), "shell", "-c", "raise SystemExit(3)").returncode == 3
    failed = run_manage(env(), "shell", "-c", "1 / 0")
    assert failed.returncode == 1 and "ZeroDivisionError" in failed.stderr
    unknown = run_manage(env(), "no_such_command")
    assert unknown.returncode == 1 and "Unknown command" in unknown.stderr
    flushed = run_manage(env(), "shell", "-c", "import sys; sys.stdout.write('unflushed')")
    assert flushed.stdout.endswith("unflushed")


def test_a_forked_process_is_driven_by_lines_and_stopped_with_its_session():
    echo = "import sys\nfor line in sys.stdin:\n    print('got', line.strip(), flush=True)"
    process = Process([*MANAGE, "shell", "-c", echo], env=env(), stdin=True)
    process.say("one")
    assert process.expect("got") == "got one"
    process.stop()
    assert process.popen.returncode == 0

    sleeper = "import time\nprint('up', flush=True)\ntime.sleep(600)"
    process = Process([*MANAGE, "shell", "-c", sleeper], env=env())
    process.wait_for_line("up")
    process.signal(signal.SIGTERM)
    assert process.wait() == -signal.SIGTERM
    process = Process([*MANAGE, "shell", "-c", sleeper], env=env())
    process.wait_for_line("up")
    process.kill()
    wait_until(lambda: process.popen.poll() == -signal.SIGKILL, 10, "the kill reported")


def test_a_child_the_server_cannot_start_as_python_would_is_started_afresh():
    """(An interpreter option in the environment: the server's interpreter has its own.)"""
    parent = "import os; print('parent', os.getppid())"
    odd = run_manage(env(PYTHONWARNINGS="ignore::DeprecationWarning"), "shell", "-c", parent)
    assert odd.returncode == 0 and f"parent {os.getpid()}\n" in odd.stdout
