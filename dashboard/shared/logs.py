"""Logging filters: kiosk tokens kept out of every line, and expected refusals told calmly;
and the JSON form of a line, for log systems (`LOG_FORMAT=json`).

Kiosk tokens:
Django logs the path of each 4xx/5xx answer on `django.request` ("Not Found: /wallboard/
<token>/"), and other libraries may log a path too; a token in a log is a working link in
the hands of whoever reads the logs. Installed on the console handler and on
`django.request` (whose records Django's own handlers may print before they reach ours).
"""

import json
import logging
import re
from datetime import UTC, datetime

TOKEN_IN_PATH = re.compile(r"(/wallboard/)[^/\s?#\"'<>]+")


def redact(text: str) -> str:
    return TOKEN_IN_PATH.sub(r"\1[redacted]", text)


class RedactKioskTokens(logging.Filter):
    """The message and its traceback: an exception's text may hold a path too."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a malformed call: the handler reports it, a filter must not raise
            return True
        clean = redact(message)
        if clean != message:
            record.msg, record.args = clean, ()
        if record.exc_info and not record.exc_text:  # what the formatter would print
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text)
        if record.stack_info:
            record.stack_info = redact(record.stack_info)
        return True


class CalmRefusals(logging.Filter):
    """A refusal (any 4xx: a page above someone's role, a foreign Host header) is the
    product working: one WARNING line, not a traceback at ERROR. /readyz's 503 is its answer
    to a probe that load balancers repeat every few seconds through an outage: INFO."""

    def filter(self, record: logging.LogRecord) -> bool:
        status = getattr(record, "status_code", None)
        if status is not None and 400 <= status < 500:
            record.exc_info, record.exc_text = None, None
            record.levelno, record.levelname = logging.WARNING, "WARNING"
        elif status == 503 and getattr(getattr(record, "request", None), "path", "") == "/readyz":
            record.levelno, record.levelname = logging.INFO, "INFO"
        return True


# What every LogRecord has: the rest are the context fields a call passed (`extra=`).
STANDARD = set(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {"message", "asctime"}
SIMPLE = (str, int, float, bool, type(None))


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time (UTC, ISO 8601), level, logger, message, the record's
    context fields (`status_code`; a request as its method and path), and the traceback.
    Runs after the filters: the message and traceback come already redacted, and any other
    text is redacted here."""

    def format(self, record: logging.LogRecord) -> str:
        line = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        for key, value in vars(record).items():
            if key in STANDARD or key.startswith("_"):
                continue
            if key == "request" and hasattr(value, "path"):
                line["method"], line["path"] = getattr(value, "method", None), redact(value.path)
            elif isinstance(value, SIMPLE):
                line[key] = redact(value) if isinstance(value, str) else value
        if record.exc_info and not record.exc_text:
            record.exc_text = redact(self.formatException(record.exc_info))
        if record.exc_text:
            line["traceback"] = record.exc_text
        if record.stack_info:
            line["stack"] = record.stack_info
        return json.dumps(line, ensure_ascii=False, default=str)
