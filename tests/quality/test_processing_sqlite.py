"""SQLite with the web requests and the webhook processor writing at once.

In WAL mode a transaction that has read and then writes fails at once ("database is
locked", without waiting) when another connection wrote in between: the processor's
update_or_create does exactly that while the receiver stores deliveries, and a delivery
that failed so five times was given up (a flood test lost one in CI). Transactions begin
IMMEDIATE: the write lock is taken at the start, and the other writer waits for it."""

import json

from dashboard.testing.processes import command_env, last_line, run_manage
from dashboard.testing.servers import migrated_sqlite

READ_THEN_WRITE = """
import json, threading
from django.db import connection, transaction
from dashboard.quality.models import Delivery

def receiver_stores():
    Delivery.objects.create(delivery_id="stored", event="call_completed", body=b"{}")
    connection.close()

with transaction.atomic():
    Delivery.objects.count()  # the transaction has read
    other = threading.Thread(target=receiver_stores)
    other.start()
    other.join(timeout=1)  # done at once unless it waits for this transaction
    Delivery.objects.create(delivery_id="processed", event="call_completed", body=b"{}")
other.join()
print(json.dumps(sorted(Delivery.objects.values_list("delivery_id", flat=True))))
"""


def test_a_transaction_that_read_still_writes_while_another_connection_writes(tmp_path):
    env = command_env(DATABASE_URL=migrated_sqlite(tmp_path / "db.sqlite3"), REDIS_URL="")
    run = run_manage(env, "shell", "-c", READ_THEN_WRITE)
    assert json.loads(last_line(run)) == ["processed", "stored"]
