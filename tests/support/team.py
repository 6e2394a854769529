"""Team members for tests: a real login added with `memevo team add`, its own open store,
and its removal afterwards (a test may have removed it already)."""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from memory_core.store.engines.backend import POSTGRESQL, Backend
from memory_core.store.engines.database import Store


@contextlib.contextmanager
def added_member(
    store: Store, cli_run: Callable[..., Any], home: Path, prefix: str = "bob_", member_home: Path | None = None
) -> Iterator[tuple[str, str, Store]]:
    """``(name, url, their open store)`` of a member added by the store's administrator;
    their state dir is ``member_home``, else one named after them in ``home``."""
    name = prefix + os.urandom(4).hex()
    result = cli_run("team", "add", name, "--json")
    assert result.exit_code == 0, result.output
    url = json.loads(result.output)["url"]
    member = Store.open(member_home or home / name, Backend(POSTGRESQL, url, None))
    try:
        yield name, url, member
    finally:
        member.close()
        from memory_core.store.schema.team import list_members, remove_member

        with store.transaction() as conn:
            if name in list_members(conn):
                remove_member(conn, name)
