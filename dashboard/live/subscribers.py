"""The pages of higher rooms that ride along in the live feed's pushes.

The feed knows them only through this interface, and the composition root
(main/bridge_task.py) subscribes them, as it hands the bridge its sinks: the wallboard's
panels add parts of their own to every push, rendered once per change; the agent pages hear
each push's changed tiles, rendered once for the live view.
"""

from dataclasses import dataclass

from dashboard.upstream import contract as c


@dataclass(frozen=True)
class Board:
    """What a subscriber's own parts are rendered from."""

    campaigns: list[c.Campaign]
    figures: dict  # the feed's figures from outside it (webhook records, alerts, QA)
    names: dict[str, str]  # agent id -> name, of the agents on the floor


class Subscriber:
    """A follower of the live feed; by default it adds nothing and hears nothing."""

    def parts(self, board: Board) -> dict[str, str]:
        """Its own parts of the push, by name: asked for once at first, then whenever the
        board's campaigns or figures changed (or the whole view did)."""
        return {}

    async def on_tiles(self, tiles: dict[str, str], full: bool):
        """After a push that changed agents: their tiles as the live view shows them (every
        agent's when `full`)."""
