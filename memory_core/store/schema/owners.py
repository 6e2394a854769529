"""Whose a claim, a source or a history event is, and which claims a team shares.

Every source, claim and event has an ``owner``: the database login that wrote it. On
PostgreSQL the column defaults to ``current_user``, so no client names (or forges) an owner
and writers need no change; on SQLite, a one-person store, it is ``''``, the store's owner.
On PostgreSQL the login that owns the store's tables is the store's owner (a
one-person store's only login, a team's administrator); rows with ``''`` (copied from a
SQLite store) are that person's.

A claim is **shared** with the team when it is a project fact, decision or project state
(:data:`SHARED_KINDS`) of a repository (:func:`is_repository_origin`), does not speak about
the person who said it (:func:`speaks_of_oneself`) and passes a second secret check
(:func:`contains_secret`); anything else is **personal**: preferences, statements about
oneself, claims of directories outside a repository, and every source's text. A person sees
their own claims and the team's shared ones (:func:`visible_clause`).

Standard library only: the per-turn hook reads claims through :func:`visible_clause`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from memory_core.lazy_pattern import lazy
from memory_core.store.engines.dbapi import DbConn, is_postgres

PERSONAL, SHARED = "personal", "shared"
SCOPES = (PERSONAL, SHARED)
SHARED_KINDS = frozenset({"fact", "decision", "project_state"})
# Origins that name no repository: an unknown directory, imported claims without an origin.
NON_REPOSITORY_ORIGINS = frozenset({"unknown", "legacy"})
# First person: "I", "I'm", "my", "me", "mine", "myself", and Chinese 我 (我们, "we", is the team).
_FIRST_PERSON = lazy(r"\bI\b|\bI'(?:m|ve|d|ll)\b|(?i:\b(?:my|me|mine|myself)\b)|我(?!们)")


def is_repository_origin(origin: str) -> bool:
    """Whether an origin names a project rather than a directory: a repository's normalized
    remote or a name set with the ``project`` setting (memory_core.project), not an
    absolute path (a checkout without a remote, or no checkout)."""
    text = origin.strip()
    if not text or text in NON_REPOSITORY_ORIGINS:
        return False
    return not (
        text.startswith(("/", "~", "\\")) or (len(text) > 2 and text[0].isalpha() and text[1:3] in (":/", ":\\"))
    )


def speaks_of_oneself(content: str) -> bool:
    """Whether a claim speaks about the person who said it (first person)."""
    return _FIRST_PERSON.search(content) is not None


def contains_secret(content: str) -> bool:
    """The second secret check of a claim before it is shared: any secret pattern that
    redaction knows (memory_core.privacy.redaction) matching the claim's text."""
    from memory_core.privacy.redaction import redact_secrets  # only where claims are written

    return redact_secrets(content) != content


def claim_scope(kind: str, origin: str, content: str, search_terms: Sequence[str] = ()) -> str:
    """``shared`` or ``personal`` (see the module docstring); the secret check reads the
    claim's search terms too (indexed and shown with it)."""
    if kind not in SHARED_KINDS or not is_repository_origin(origin) or speaks_of_oneself(content):
        return PERSONAL
    return PERSONAL if contains_secret("\n".join([content, *search_terms])) else SHARED


def event_scope(claims: Iterable[tuple[str, str, str, Sequence[str]]]) -> str:
    """A history event's scope from its claims' ``(kind, origin, content, search terms)``:
    shared only when it holds claims and every one of them is shared."""
    scopes = [claim_scope(kind, origin, content, terms) for kind, origin, content, terms in claims]
    return SHARED if scopes and all(s == SHARED for s in scopes) else PERSONAL


def current_person(conn: DbConn) -> str:
    """Who is reading or writing: the PostgreSQL login, or ``''`` (the owner) on SQLite."""
    if not is_postgres(conn):
        return ""
    (user,) = conn.execute("SELECT current_user").fetchone()
    return str(user)


def store_owner(conn: DbConn) -> str | None:
    """The store's owner on PostgreSQL: the login that owns its tables (who created the
    store, or its administrator); ``None`` on SQLite."""
    if not is_postgres(conn):
        return None
    row = conn.execute(
        "SELECT tableowner FROM pg_tables WHERE schemaname = current_schema() AND tablename = 'memories'"
    ).fetchone()
    return str(row[0]) if row is not None else None


def own_owners(conn: DbConn) -> tuple[str, ...]:
    """The owner values whose rows are the current person's: their login, and ``''`` for the
    store's owner (or for anyone, while a store records no owner). Asked once per PostgreSQL
    connection once the store has tables: its login and the tables' owner do not change,
    and every filtered query of a recall or a worker's attempt reads this."""
    if not is_postgres(conn):
        return ("",)
    known: tuple[str, ...] | None = getattr(conn, "own_owners", None)
    if known is not None:
        return known
    person = current_person(conn)
    owner = store_owner(conn)
    owners = (person, "") if owner is None or owner == person else (person,)
    if owner is not None:
        conn.own_owners = owners  # type: ignore[attr-defined]
    return owners


def visible_clause(conn: DbConn, table: str = "") -> tuple[str, tuple[str, ...]]:
    """SQL to AND into a ``memories`` query so it reads only claims the current person may
    see (their own and the shared ones), with its parameters. Empty on SQLite, where every
    claim is the one owner's. ``table`` qualifies the columns (``"m"`` for ``m.owner``)."""
    if not is_postgres(conn):
        return "", ()
    prefix = f"{table}." if table else ""
    owners = own_owners(conn)
    marks = ",".join("?" * len(owners))
    return f" AND ({prefix}scope = '{SHARED}' OR {prefix}owner IN ({marks}))", owners


def owner_of(conn: DbConn, memory_id: str) -> str | None:
    """The owner of a claim (``None`` when there is no such claim)."""
    row = conn.execute("SELECT owner FROM memories WHERE id = ?", (memory_id,)).fetchone()
    return str(row[0]) if row is not None else None


def backfill_scopes(conn: DbConn) -> int:
    """Set the scope of every claim that :func:`claim_scope` shares (migration 5); the rest
    keep ``personal``. Returns how many became shared."""
    kinds = sorted(SHARED_KINDS)
    rows = conn.execute(
        f"SELECT id, kind, origin, body FROM memories WHERE kind IN ({','.join('?' * len(kinds))})", kinds
    ).fetchall()
    import json

    shared = []
    for memory_id, kind, origin, body in rows:
        try:
            content = json.loads(body).get("content")
        except (ValueError, AttributeError):
            continue
        if isinstance(content, str) and claim_scope(str(kind), str(origin), content) == SHARED:
            shared.append(str(memory_id))
    for memory_id in shared:
        conn.execute("UPDATE memories SET scope = ? WHERE id = ?", (SHARED, memory_id))
    return len(shared)


def may_see_claim(conn: DbConn, memory_id: str) -> bool:
    """Whether the current person may see a claim (their own, or a shared one)."""
    mine, params = visible_clause(conn)
    return conn.execute(f"SELECT 1 FROM memories WHERE id = ?{mine}", (memory_id, *params)).fetchone() is not None


def owns_source(conn: DbConn, source_id: str) -> bool:
    """Whether a source is the current person's: a source's text is never shared."""
    if not is_postgres(conn):
        return True
    owners = own_owners(conn)
    row = conn.execute(
        f"SELECT 1 FROM sources WHERE id = ? AND owner IN ({','.join('?' * len(owners))})", (source_id, *owners)
    ).fetchone()
    return row is not None


def source_owner_clause(conn: DbConn) -> tuple[str, tuple[str, ...]]:
    """SQL to AND into a ``sources`` query so it reads only the current person's sources
    (a worker consolidates only its own person's), with its parameters; empty on SQLite."""
    if not is_postgres(conn):
        return "", ()
    owners = own_owners(conn)
    return f" AND owner IN ({','.join('?' * len(owners))})", owners


def others_owners(conn: DbConn, table: str, ids: list[str] | list[int]) -> dict[str, str]:
    """For rows of ``table`` (``memories`` or ``events``) among ``ids`` written by someone
    else than the current person: ``{str(id): owner}``, so a view can say whose they are.
    Empty on SQLite."""
    if not is_postgres(conn) or not ids or table not in ("memories", "events"):
        return {}
    owners = own_owners(conn)
    found: dict[str, str] = {}
    for start in range(0, len(ids), 400):
        chunk = list(ids[start : start + 400])
        for row_id, owner in conn.execute(
            f"SELECT id, owner FROM {table} WHERE id IN ({','.join('?' * len(chunk))}) "
            f"AND owner NOT IN ({','.join('?' * len(owners))})",
            (*chunk, *owners),
        ):
            found[str(row_id)] = str(owner)
    return found


def hidden_claim_ids(conn: DbConn) -> frozenset[str]:
    """Ids of claims the current person may not see (other members' personal claims)."""
    if not is_postgres(conn):
        return frozenset()
    owners = own_owners(conn)
    rows = conn.execute(
        f"SELECT id FROM memories WHERE scope <> '{SHARED}' AND owner NOT IN ({','.join('?' * len(owners))})",
        owners,
    )
    return frozenset(str(row[0]) for row in rows)


def backfill_event_scopes(conn: DbConn) -> int:
    """Set the scope of every event whose claims are all shared (migration 6); the rest keep
    ``personal``. Returns how many became shared."""
    import json

    shared: list[int] = []
    for event_id, body in conn.execute("SELECT id, body FROM events").fetchall():
        try:
            data = json.loads(body)
            records = [*data.get("before", []), *data.get("after", [])]
            claims = [
                (str(r["kind"]), str(r["origin"]), str(r["content"]), [str(t) for t in r.get("search_terms") or []])
                for r in records
            ]
        except (ValueError, AttributeError, KeyError, TypeError):
            continue
        if event_scope(claims) == SHARED:
            shared.append(int(event_id))
    for event_id in shared:
        conn.execute("UPDATE events SET scope = ? WHERE id = ?", (SHARED, event_id))
    return len(shared)


def person_key(conn: DbConn, key: str) -> str:
    """The metadata key of a value each person keeps for themselves (review marks, their
    workers' heartbeats): ``key`` for the store's owner (and on SQLite, a one-person store),
    ``key@login`` for a member, so one member's value is no one else's."""
    owners = own_owners(conn)
    return key if "" in owners else f"{key}@{owners[0]}"
