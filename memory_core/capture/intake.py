"""Capturing sources: sanitized, idempotent, and (for summaries) with local claims.

A source row is both the evidence and its consolidation job. Capturing the same event
twice (same dedupe key) leaves one source.
"""

from __future__ import annotations

import json
from pathlib import Path

from memory_core.ids import sha256_hex
from memory_core.ids import source_id as make_source_id
from memory_core.privacy.sanitize import sanitize_text
from memory_core.project import Project, resolve_project
from memory_core.store.tables.source_rows import insert_source_row, new_job, source_exists

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (docs/hooks.md, "Cost")
if TYPE_CHECKING:
    from memory_core.store.engines.dbapi import DbConn

SOURCE_TYPES = ("summary", "user_statement", "progress")


# Record classes are tuples written out, not ``typing.NamedTuple`` (which compiles code for each
# class on every hook start and needs ``typing``; docs/hooks.md, "Cost").
class CaptureResult(tuple[str, bool, int]):
    """The source a capture names (new, or the one already captured) and its local claims."""

    __slots__ = ()

    def __new__(cls, source_id: str, created: bool, local_claims: int = 0) -> CaptureResult:
        return tuple.__new__(cls, (source_id, created, local_claims))

    def __getnewargs__(self) -> tuple[object, ...]:
        return tuple(self)

    @property
    def source_id(self) -> str:
        return self[0]

    @property
    def created(self) -> bool:
        return self[1]

    @property
    def local_claims(self) -> int:
        return self[2]


def capture_project(cwd: str, home: Path | None = None) -> Project:
    """The project of a capture in ``cwd``: its repository, named path or directory
    (memory_core.project); ``home`` is the state dir, whose ``config.toml`` may name
    projects (default: the state dir of the environment)."""
    if not cwd:
        return Project("unknown", ())
    if home is None:
        from memory_core.paths import state_home

        home = state_home()
    return resolve_project(cwd, home)


def canonical_origin(cwd: str, home: Path | None = None) -> str:
    """The capture origin: the project of the working directory (:func:`capture_project`)."""
    return capture_project(cwd, home).origin


def adopt_project_paths(conn: DbConn, project: Project) -> None:
    """Record the path origins of the project's directories that hold claims as its aliases
    (memory_core.store.tables.origin_aliases), so claims captured before projects were repositories
    are found from it. Call in the capture's write transaction, before capturing."""
    from memory_core.store.tables.origin_aliases import adopt_path_origins

    if project.roots:
        adopt_path_origins(conn, project.origin, project.roots)


def dedupe_key(agent: str, session_id: str | None, source_type: str, text: str, identity: str | None = None) -> str:
    """Same agent, session, type and text (or, when given, the same ``identity``): the same source."""
    seed = f"identity:{identity}" if identity is not None else text
    # Captured text is valid UTF-8 (sanitize_text); surrogatepass keeps a key computable for
    # any other string instead of failing the capture (it is the same bytes for valid text).
    digest = sha256_hex(seed.encode("utf-8", errors="surrogatepass"))[:32]
    return f"{key_prefix(agent, session_id)}{source_type}|{digest}"


def key_prefix(agent: str, session_id: str | None) -> str:
    """The start every dedupe key of one agent session shares."""
    return f"{agent}|{session_id or '-'}|"


def source_exists_for(conn: DbConn, agent: str, session_id: str | None, source_type: str, identity: str) -> str | None:
    """The id of the source already captured with ``identity`` in this agent session, if any."""
    sid = make_source_id(dedupe_key(agent, session_id, source_type, "", identity))
    return sid if source_exists(conn, sid) else None


def captured_texts(conn: DbConn, agent: str, session_id: str | None, source_type: str, limit: int = 500) -> list[str]:
    """The texts of the newest sources of one type this agent session captured already."""
    prefix = f"{key_prefix(agent, session_id)}{source_type}|"
    texts = []
    for (body,) in conn.execute(
        "SELECT body FROM sources WHERE dedupe_key >= ? AND dedupe_key < ? ORDER BY created_at DESC LIMIT ?",
        (prefix, prefix + "\U0010ffff", limit),
    ):
        try:
            text = json.loads(body).get("text")
        except (ValueError, AttributeError):
            continue
        if isinstance(text, str):
            texts.append(text)
    return texts


def capture_source(
    conn: DbConn,
    *,
    source_type: str,
    origin: str,
    text: str,
    now: float,
    agent: str = "generic",
    session_id: str | None = None,
    target_ids: tuple[str, ...] = (),
    identity: str | None = None,
) -> CaptureResult:
    """Store one sanitized source as a due job (call inside a write transaction).

    Summaries also yield their self-labelled lines as ``summary/local`` claims in the same
    transaction, so a failed model pass never loses them. The source row is written without
    loading the record models (the hook path stays cheap); reads validate it as a record.

    ``identity`` replaces the text as the idempotency key: a progress source is the same
    source when it reports the same user message and the same linked tool calls.
    """
    if source_type not in SOURCE_TYPES:
        raise ValueError(f"unknown source type {source_type!r}")
    clean = sanitize_text(text)
    if not clean:
        raise ValueError("nothing to capture after sanitizing")
    key = dedupe_key(agent, session_id, source_type, clean, identity)
    sid = make_source_id(key)
    if source_exists(conn, sid):
        return CaptureResult(sid, created=False)
    insert_source_row(
        conn,
        source_id=sid,
        origin=origin,
        source_type=source_type,
        dedupe_key=key,
        created_at=now,
        text=clean,
        agent=agent,
        session_id=session_id,
        target_ids=list(target_ids)[:8],
        job=new_job(now),
    )
    added = 0
    if source_type == "summary":
        from memory_core.capture.summary_lines import extract_local_claims  # summaries only

        lines = extract_local_claims(clean)
        if lines:
            from memory_core.capture.local_claims import add_local_claims  # labelled lines only

            added = add_local_claims(conn, sid, origin, lines, now)
    return CaptureResult(sid, created=True, local_claims=added)
