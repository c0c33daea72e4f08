"""What a registry entry says about a name that crosses rooms: the room that decides what
it means (`owner`), the rooms that write it (send to the group, set the key, close with the
code) and the rooms that read it. `tests/test_layers.py` checks that every module that
imports a registered name belongs to one of its rooms, and that no other module declares
the same value again. "browser" stands for the pages' scripts."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Entry:
    owner: str
    writers: tuple[str, ...]
    readers: tuple[str, ...]

    @property
    def rooms(self) -> set[str]:
        return {self.owner, *self.writers, *self.readers}
