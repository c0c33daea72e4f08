"""CSV downloads (dashboard/shared/export.py) as a test reads them."""

import csv
import io

from asgiref.sync import async_to_sync


def csv_rows(response) -> list[list[str]]:
    """The rows of a CSV download from Django's test client, header first; asserts it is
    one (its type, and an attachment). The body is streamed by an async iterator: it is
    read on an event loop, its database reads on this thread, in the test's transaction."""
    assert response.status_code == 200, response
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"].startswith('attachment; filename="')

    async def read():
        return b"".join([part async for part in response.streaming_content])

    text = async_to_sync(read)().decode("utf-8")
    return list(csv.reader(io.StringIO(text, newline="")))
