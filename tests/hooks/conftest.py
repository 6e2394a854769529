from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def seeded(home: Path) -> str:
    """The id of an hour-old claim in the state dir: the staging database listens on port 5433."""
    from memory_core import clock
    from memory_core.store.engines.database import Store
    from tests.factories import make_memory, seed

    claim = make_memory(
        "The staging PostgreSQL database listens on port 5433", origin="/work/app", at=clock.now() - 3600
    )
    with Store.open(home) as store:
        seed(store, claim)
    return claim.id
