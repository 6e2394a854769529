"""Helpers for recall tests: claims written through the real store, recalled read-only."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from memory_core.records import Memory
from memory_core.store.engines.database import Store
from memory_core.store.tables.memories import put_memory
from tests.factories import make_memory


@pytest.fixture
def add(store: Store) -> Callable[..., Memory]:
    """Write one claim (``make_memory`` arguments) in its own transaction and return it."""

    def write(content: str, **extra: Any) -> Memory:
        memory = make_memory(content, **extra)
        with store.transaction() as conn:
            put_memory(conn, memory)
        return memory

    return write


@pytest.fixture
def reader(store: Store, home: Path):
    """A read-only store on the same database, as the hook and the commands open it."""
    readonly = Store.open_readonly(home)
    yield readonly
    readonly.close()
