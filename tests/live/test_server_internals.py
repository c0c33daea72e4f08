"""The server's fan-out and body limits use Daphne's, autobahn's and Twisted's internals
(pyproject.toml bounds their versions). Whatever is gone is named, loudly."""

import pytest
from autobahn.websocket.compress_deflate import PerMessageDeflate
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


def test_an_autobahn_that_inflates_without_bound_is_refused(monkeypatch):
    """Before 26.10.2 a compressed message's frames each inflated up to the whole limit: a
    1 MiB message could grow to gigabytes. Compression is accepted only where it is bounded."""

    def unbounded(self, data):
        return self._decompressor.decompress(data)

    monkeypatch.setattr(PerMessageDeflate, "decompress_message_data", unbounded)
    with pytest.raises(RuntimeError, match="does not bound what a frame inflates to"):
        check_internals()
