"""The standing digest of a working directory: its project, the project's origins, the
enclosing directories whose preferences are general, the review gate and the checkout check
put together, for the session-start hook, ``memevo explain --session-start`` and the web page.

Standard library only (the session-start hook runs it); never raises for a directory that is
missing or no checkout: the project is then the directory, and nothing is checked.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from memory_core.recall.checkout_check import project_group
from memory_core.recall.rows import ClaimRow
from memory_core.recall.standing import StandingResult, enclosing_directories, standing_digest
from memory_core.recall.standing_setting import standing_bytes
from memory_core.store.engines.dbapi import DbConn


def standing_for(
    conn: DbConn,
    home: Path,
    cwd: str,
    now: float,
    *,
    max_bytes: int | None = None,
    env: Mapping[str, str] | None = None,
    check_checkout: bool = True,
) -> StandingResult:
    """The standing digest for a session in ``cwd`` (``max_bytes`` defaults to the setting)."""
    bound = standing_bytes(home, env) if max_bytes is None else max_bytes
    if bound <= 0 or not cwd:
        return StandingResult("", [], [], cwd or "", 0)
    project, group = project_group(conn, cwd, home)
    general = enclosing_directories(cwd, group)
    held_back: Callable[[ClaimRow], bool] | None = None
    from memory_core.reports.review_gate import gate_enabled

    if gate_enabled(home, env):
        from memory_core.reports.review_gate import pending_review
        from memory_core.store.tables.review_marks import read_review_marks

        marks = read_review_marks(conn)

        def pending(claim: ClaimRow) -> bool:
            return claim.method == "model" and pending_review(
                conn, claim.memory_id, claim.shown_source_id, marks.through, marks.approved
            )

        held_back = pending

    stale = None
    if check_checkout:
        from memory_core.recall.checkout_check import stale_check_for

        stale = stale_check_for(cwd, group)
    return standing_digest(
        conn, project=project, group=group, general=general, now=now, max_bytes=bound, held_back=held_back, stale=stale
    )
