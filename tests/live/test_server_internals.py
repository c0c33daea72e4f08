"""The server's fan-out and body limits use Daphne's, autobahn's and Twisted's internals
(pyproject.toml bounds their versions). Whatever is gone is named, loudly."""

import pytest
from twisted.internet import tcp

from dashboard.live.hub import require
from dashboard.live.server import INTERNALS, check_internals


def test_every_internal_the_server_relies_on_is_there():
    check_internals()  # raises, naming the first one gone
    assert len(INTERNALS) > 15


def test_a_missing_internal_is_named(monkeypatch):
    monkeypatch.delattr(tcp.Connection, "writeSomeData")
    with pytest.raises(
        RuntimeError, match=r"twisted\.internet\.tcp\.Connection\.writeSomeData is gone"
    ):
        check_internals()


def test_a_missing_instance_internal_is_named():
    """Those only instances have (a transport's buffers) are checked for each socket; the
    real-server tests (test_server_fanout.py) fail on any such error in the server's log."""
    with pytest.raises(RuntimeError, match=r"builtins\.object\._tempDataLen is gone"):
        require(object(), "_tempDataLen")
