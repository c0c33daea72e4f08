"""What the floor replay keeps: the live events in order, a chunk a write, and the whole
state every 15 seconds, so any moment is one stored state plus 15 seconds of events."""

from django.db import models


class Chunk(models.Model):
    """Consecutive live events, compressed (codec.py), written in one insert. A chunk that
    carries `state` starts with the whole live state as it was before its events: replay
    starts there. Rows are in the order written (`id`); `start` and `end` are the floor's
    time (the events' own), which the seek looks up."""

    start = models.DateTimeField()
    end = models.DateTimeField()
    count = models.PositiveIntegerField()  # events in `events`
    events = models.BinaryField()
    state = models.BinaryField(null=True)
    has_state = models.BooleanField(default=False)

    class Meta:
        indexes = [
            models.Index(fields=["start"]),
            models.Index(fields=["has_state", "start"]),
        ]


class Gap(models.Model):
    """Events lost between `start` and `end` (the recorder fell behind, or the database was
    away too long): a replayed moment in between is what the state was at `start`."""

    start = models.DateTimeField(db_index=True)
    end = models.DateTimeField()
    reason = models.CharField(max_length=200)


class Roster(models.Model):
    """Agents a day's recording names by number (codec.Roster): `agents` lists the entries
    ([id, name, team], compressed) added after the rows before it in a state's `roster`.
    `day` is the recording's (the organisation's zone), which the purge goes by."""

    day = models.DateField(db_index=True)
    agents = models.BinaryField()
