"""The progress sources of one project state are applied in the order they were captured.

Two quick work turns ("commit the changes", then "now push them") each leave a progress
source nominating the same state. Applied the other way round, the older observation
("committed, not pushed") would overwrite the newer one, and with two workers both would
start from the same state and one would find it replaced. So a progress source waits while
an earlier progress source of the same origin that concerns the same state (the two
nominated ids lead, along their replacement chains, to one claim) is still pending or
leased. A paused source no longer holds the later ones back, as a paused statement does not.

The check runs inside the leasing transaction (the store's one writer at a time), so two
workers can never lease two sources of one state at once.
"""

from __future__ import annotations

from memory_core.jobs import policy
from memory_core.records import Source
from memory_core.store.engines.dbapi import DbConn
from memory_core.store.schema.columns import SOURCE_COLUMNS
from memory_core.store.schema.owners import source_owner_clause
from memory_core.store.tables.replacements import current_ids
from memory_core.store.tables.sources import source_from_row

# Unfinished progress sources of one origin examined: a turn leaves at most one, so this
# is far more than can be waiting for one state.
MAX_EARLIER = 64


def earlier_progress_of_same_state(conn: DbConn, source: Source) -> Source | None:
    """The oldest progress source of the current person captured before ``source`` (same
    origin) that concerns one of its states and is not applied yet, or ``None``."""
    if source.source_type != "progress" or not source.target_ids:
        return None
    # The current person's sources only: another person's are run by their own workers, and
    # their personal states are not this person's to wait for.
    mine, owners = source_owner_clause(conn)
    rows = conn.execute(
        f"SELECT {SOURCE_COLUMNS} FROM sources WHERE origin=? AND source_type='progress' "
        "AND state IN ('pending', 'leased') AND consecutive_failures<? AND id<>? "
        f"AND (created_at<? OR (created_at=? AND id<?)){mine} ORDER BY created_at, id LIMIT ?",
        (
            source.origin,
            policy.FAILURE_CAP,
            source.id,
            source.created_at,
            source.created_at,
            source.id,
            *owners,
            MAX_EARLIER,
        ),
    ).fetchall()
    if not rows:
        return None
    states = current_ids(conn, source.target_ids)
    for row in rows:
        earlier = source_from_row(row)
        if states & current_ids(conn, earlier.target_ids):
            return earlier
    return None
