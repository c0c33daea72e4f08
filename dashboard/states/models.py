"""The one record of the agents' states: a compressed row per agent and stretch of the day,
and each stretch's opening (every agent's state as it began), written by the state journal
(journal.py), read by the agent's day and the floor replay (reader.py)."""

from django.db import models


class AgentStates(models.Model):
    """An agent's states noted over a stretch of the day (`codec.WINDOW`, from `start`),
    compactly: one row per agent and stretch, its entries in one compressed list
    (codec.py), rewritten while the stretch is open. An entry is a change of the agent (its
    state, since when, its call) and the moment the floor showed it; the same change in two
    rows (a restart, the history's backfill) counts once."""

    agent_id = models.CharField(max_length=200)
    start = models.DateTimeField()
    states = models.BinaryField()

    class Meta:
        indexes = [
            models.Index(fields=["agent_id", "start"], name="states_agent_start_idx"),
            models.Index(fields=["start"], name="states_start_idx"),
        ]


class Opening(models.Model):
    """Every agent on the floor and its state as a stretch began, or at a reload of the
    service's truth that changed the floor's order (compressed, in the live state's
    order), so the replay of a moment reads one opening and the rows of its stretch."""

    start = models.DateTimeField(db_index=True)
    agents = models.BinaryField()
