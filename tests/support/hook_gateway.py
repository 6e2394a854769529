"""``memevo hook`` as a real process on either backend: on PostgreSQL every hook goes
through ``memevo serve``, so a test module that runs hooks on both backends uses
:func:`gateway_for` in an autouse fixture."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from memory_core.store.engines.database import Store
from tests.support.memevo_serve import MemevoServe
from tests.support.memevo_worker import memevo_env


@contextmanager
def gateway_for(home: Path, backend: str, log: Path) -> Iterator[None]:
    """Nothing on SQLite; on PostgreSQL a migrated store and ``memevo serve`` beside it."""
    if backend != "postgresql":
        yield
        return
    Store.open(home).close()
    env = memevo_env(home, MEMEVO_DATABASE_URL=os.environ["MEMEVO_DATABASE_URL"])
    with MemevoServe(env, log=log):
        yield
