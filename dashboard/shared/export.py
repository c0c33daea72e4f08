"""Tables downloaded as CSV: `?format=csv` on a page's own URL (with `table=` where the page
shows several) gives the rows the page shows, with the filters that are on screen.

Streamed: rows are read in chunks on a worker thread (the ORM is synchronous) and written
as they come, so a long table never sits whole in memory. A text cell a spreadsheet would
take for a formula (`=`, `+`, `-`, `@`, or a tab or carriage return first) is prefixed with
an apostrophe, so the spreadsheet shows it as text; numbers stay numbers.
"""

import csv
import re
from itertools import islice

from asgiref.sync import sync_to_async
from django.http import HttpResponseBadRequest, StreamingHttpResponse
from django.utils import timezone

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
CHUNK_ROWS = 500


def wants_csv(request) -> bool:
    return request.GET.get("format") == "csv"


def cell(value):
    """A value as a CSV cell: text that would start a formula is made plain text."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if hasattr(value, "tzinfo"):  # a datetime: in the organisation's zone, with its offset
        return timezone.localtime(value).isoformat(timespec="seconds")
    if isinstance(value, str) and value.startswith(FORMULA_START):
        return "'" + value
    return value


class _Line:
    """csv.writer's file: each row written comes back as the text of its line."""

    def write(self, line: str) -> str:
        return line


def csv_response(name: str, header: list[str], rows) -> StreamingHttpResponse:
    """`rows` (any iterable of sequences, read lazily) as a CSV download `name-DATE.csv`."""
    writer, rows = csv.writer(_Line()), iter(rows)

    def lines(chunk) -> bytes:
        return "".join(writer.writerow([cell(v) for v in row]) for row in chunk).encode()

    def next_chunk() -> bytes:
        return lines(islice(rows, CHUNK_ROWS))

    async def stream():
        yield lines([header])
        while chunk := await sync_to_async(next_chunk)():
            yield chunk

    safe = re.sub(r"[^A-Za-z0-9_-]+", "-", name).strip("-")[:80] or "table"
    response = StreamingHttpResponse(stream(), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = (
        f'attachment; filename="{safe}-{timezone.localdate():%Y-%m-%d}.csv"'
    )
    return response


def no_such_table(table: str, tables) -> HttpResponseBadRequest:
    return HttpResponseBadRequest(
        f"No table {table!r} to export here; choose table= one of: {', '.join(tables)}.",
        content_type="text/plain; charset=utf-8",
    )
