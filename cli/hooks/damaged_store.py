"""A store found damaged by a hook: how the hook says so, and the captures it keeps meanwhile.

Loaded only when a hook fails: a SQLite error (or a store that could not be opened) whose
words say the pages are damaged is named in one line (`memevo doctor` names the backup to
put back), and each capture the call carried is kept in the spool as the agent's adapter
resolved it, for ``memevo restore``, a starting ``memevo worker`` or ``memevo serve`` to
store at its original time (docs/reliability.md, "A damaged database").
"""

from __future__ import annotations

import sys

from cli.hooks.event import HookEvent
from cli.hooks.hook_log import log_failure
from memory_core.errors import StoreError
from memory_core.privacy.sanitize import valid_text

# The events that store something: one of them that finds memory.db damaged is kept for later.
CAPTURE_EVENTS = frozenset({"compaction", "turn_end"})


def damaged_store(exc: BaseException) -> str | None:
    """The line a hook says when SQLite found ``memory.db`` damaged (``None`` for anything
    else), whether a query met the damage or opening the file did (a damaged header or
    schema page: the store reports it as a :class:`StoreError` quoting SQLite): the hook fails
    open, and `memevo doctor` names the backup to put back."""
    sqlite3 = sys.modules.get("sqlite3")  # loaded already if a database raised it
    if not isinstance(exc, StoreError) and (sqlite3 is None or not isinstance(exc, sqlite3.DatabaseError)):
        return None
    from memory_core.store.safekeeping.damage import damage_phrase, is_damage

    if not is_damage(str(exc)):
        return None
    problem = valid_text(damage_phrase(str(exc)))
    return f"memory.db is damaged ({problem}); `memevo doctor` names a backup, `memevo restore` puts it back"


def keep_for_restore(event: HookEvent, now: float) -> bool:
    """Keep a capture that found ``memory.db`` damaged in the spool (:mod:`cli.hooks.spool`),
    as the adapter resolved it (the generic protocol's JSON: its messages, operations and
    summary as read now, not the transcript as it will be by then), for ``memevo restore``,
    ``memevo worker`` as it starts, or ``memevo serve`` once the store reads again to store at
    its original time; whether it was kept. Never raises: the hook still fails open."""
    try:
        from cli.hooks.adapters.generic import as_payload
        from cli.hooks.spool import spool_event
        from memory_core.paths import state_home

        spool_event(state_home(), as_payload(event), event.event, None, now, log_failure)
        return True
    except Exception as exc:
        log_failure(
            f"{event.event}: could not keep the capture in spool/ ({type(exc).__name__}: {valid_text(str(exc))})"
        )
        return False
