"""A logging filter that keeps kiosk tokens out of every log line.

Django logs the path of each 4xx/5xx answer on `django.request` ("Not Found: /wallboard/
<token>/"), and other libraries may log a path too; a token in a log is a working link in
the hands of whoever reads the logs. Installed on the console handler and on
`django.request` (whose records Django's own handlers may print before they reach ours).
"""

import logging
import re

TOKEN_IN_PATH = re.compile(r"(/wallboard/)[^/\s?#\"'<>]+")


def redact(text: str) -> str:
    return TOKEN_IN_PATH.sub(r"\1[redacted]", text)


class RedactKioskTokens(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a malformed call: the handler reports it, a filter must not raise
            return True
        clean = redact(message)
        if clean != message:
            record.msg, record.args = clean, ()
        return True
