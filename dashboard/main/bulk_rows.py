"""Many rows of a model written without holding the event loop: each row's column values
are made ready on the loop a slice at a time, and a thread inserts them with one
`executemany` (the database's own work, with the interpreter's lock free). `bulk_create`
would build the values and its SQL in that thread, holding the lock against the loop (and
the live feed on it) for the whole batch."""

import time

from django.db import DEFAULT_DB_ALIAS, connection, connections
from django.db.models import AutoField
from django.db.models.constants import OnConflict

from dashboard.shared.aio import turn

SLICE = 100  # rows made ready between two turns of the event loop (a few milliseconds)


def columns(model) -> list:
    """The fields an insert gives a value (not the database's own id)."""
    return [
        f
        for f in model._meta.concrete_fields
        if not isinstance(f, AutoField) and not getattr(f, "generated", False)
    ]


async def ready(model, items: list, make=None, pause=turn) -> list[tuple]:
    """The rows of `items` (each made a model instance by `make`), as their columns'
    values for the database, made a slice at a time on the event loop (`pause`, between
    two: given the loop thread's `time.thread_time()` as the slice began)."""
    fields, out = columns(model), []
    db = connections[DEFAULT_DB_ALIAS]  # once: each look-up goes through asgiref's Local
    for at in range(0, len(items), SLICE):
        since = time.thread_time()
        objs = [make(x) for x in items[at : at + SLICE]] if make else items[at : at + SLICE]
        out += [
            tuple(f.get_db_prep_save(f.pre_save(obj, True), db) for f in fields) for obj in objs
        ]
        await pause(since)
    return out


def insert(model, rows: list[tuple], ignore: bool):
    """Rows made `ready`, in one statement (in a thread; `ignore`: a row whose key is
    there already is left out, as `bulk_create(ignore_conflicts=True)` does)."""
    fields, ops = columns(model), connection.ops
    conflict = OnConflict.IGNORE if ignore else None
    names = ", ".join(ops.quote_name(f.column) for f in fields)
    values = ", ".join(["%s"] * len(fields))
    sql = " ".join(
        part
        for part in (
            ops.insert_statement(on_conflict=conflict),
            f"{ops.quote_name(model._meta.db_table)} ({names}) VALUES ({values})",
            ops.on_conflict_suffix_sql(fields, conflict, None, None),
        )
        if part
    )
    with connection.cursor() as cursor:
        cursor.executemany(sql, rows)
