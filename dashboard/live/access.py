"""Daphne's access log (one line per request and per socket's open and close) through
Python's logging instead of straight to stdout: the kiosk-token redaction and
`LOG_FORMAT` apply to it as to every other line (a wallboard link's path is its token)."""

import logging

from daphne.access import AccessLogGenerator

log = logging.getLogger("dashboard.access")


class AccessLog(AccessLogGenerator):
    def __init__(self):
        super().__init__(stream=None)

    def write_entry(self, host, date, request, status=None, length=None, ident=None, user=None):
        log.info(
            '%s "%s" %s %s',
            host,
            request,
            status or "-",
            length or "-",
            extra={"client": host, "status": status, "bytes": length},
        )
