"""What a page or an action gets: the state dir, settings, the clock reading, the request."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from memory_core.config import Settings
    from memory_core.store.engines.database import Store


class PageContext(NamedTuple):
    """One request as a page sees it; ``query`` holds the first value of each parameter."""

    home: Path
    settings: Settings
    now: float
    csrf: str
    path: str
    query: dict[str, str]

    def param(self, name: str, default: str = "") -> str:
        return self.query.get(name, default).strip()

    @contextmanager
    def store(self) -> Iterator[Store]:
        """The memory store of the state dir, opened for this request."""
        from memory_core.store.engines.database import Store

        with Store.open(self.home) as store:
            yield store
