"""Model usage belongs to the login that spent it: a person's budget counts their own rows
(and, for the store's owner, the rows copied from a SQLite store), never another's."""

from __future__ import annotations

from memory_core import clock
from memory_core.capture.intake import capture_source
from memory_core.jobs.budget import backlog, budget_state, count_call, count_tokens, tokens_per_call, usage_on
from memory_core.store.engines.database import Store
from memory_core.store.engines.dbapi import is_postgres

NOW = 1_796_270_400.0 + 3_600  # 01:00 UTC
DAY = clock.day_key(NOW)


def usage_rows(store: Store) -> list[tuple]:
    return sorted(store.conn.execute("SELECT owner, day, calls, prompt_tokens, completion_tokens FROM model_usage"))


def login(store: Store) -> str:
    """Who the store's connection writes as: its login on PostgreSQL, ``''`` on SQLite."""
    return str(store.conn.execute("SELECT current_user").fetchone()[0]) if is_postgres(store.conn) else ""


def test_calls_and_tokens_are_counted_in_the_writers_own_row(store: Store) -> None:
    with store.transaction() as conn:
        count_call(conn, NOW)
        count_call(conn, NOW)
        count_tokens(conn, NOW, 300, 40)
    assert usage_rows(store) == [(login(store), DAY, 2, 300, 40)]
    usage = usage_on(store.conn, NOW)
    assert (usage.day, usage.calls, usage.tokens) == (DAY, 2, 340)


def test_another_persons_usage_neither_counts_nor_spends_the_budget(store: Store) -> None:
    """A row written by another login (on PostgreSQL) is theirs; on SQLite, a one-person
    store, a row carrying a login (copied from PostgreSQL) is still the one owner's."""
    with store.transaction() as conn:
        count_call(conn, NOW)
        conn.execute(
            "INSERT INTO model_usage (owner, day, calls, prompt_tokens, completion_tokens) VALUES (?, ?, ?, ?, ?)",
            ("someone_else", DAY, 50, 900_000, 100_000),
        )
    usage = usage_on(store.conn, NOW)
    state = budget_state(store.conn, NOW, call_limit=10, token_limit=1_000_000)
    if is_postgres(store.conn):
        assert (usage.calls, usage.tokens) == (1, 0)
        assert not state.spent
        assert tokens_per_call(store.conn, NOW) == 2_000  # no tokens of one's own yet: the default
    else:
        assert (usage.calls, usage.tokens) == (51, 1_000_000)
        assert state.spent


def test_the_store_owners_budget_counts_rows_without_an_owner(store: Store) -> None:
    """Rows with owner ``''`` (a SQLite store copied into PostgreSQL) are the store owner's:
    their calls and tokens count beside the owner's own row."""
    with store.transaction() as conn:
        conn.execute(
            "INSERT INTO model_usage (owner, day, calls, prompt_tokens, completion_tokens) VALUES ('', ?, 4, 800, 0)",
            (DAY,),
        )
        count_call(conn, NOW)
        count_tokens(conn, NOW, 200, 0)
    expected_rows = 2 if is_postgres(store.conn) else 1
    assert len(usage_rows(store)) == expected_rows
    usage = usage_on(store.conn, NOW)
    assert (usage.calls, usage.tokens) == (5, 1_000)
    assert tokens_per_call(store.conn, NOW) == 200
    assert budget_state(store.conn, NOW, call_limit=5, token_limit=10_000).spent


def test_backlog_counts_only_the_current_persons_sources(store: Store) -> None:
    """Only a person's own worker consolidates their sources, so their budget's backlog is
    their own pending sources (another login's, on PostgreSQL, wait for that login's worker)."""
    with store.transaction() as conn:
        for i in range(3):
            capture_source(
                conn, source_type="user_statement", origin="/w", now=NOW, text=f"remember that port {9000 + i} is free"
            )
        conn.execute(
            "UPDATE sources SET owner = 'someone_else' WHERE dedupe_key = (SELECT MIN(dedupe_key) FROM sources)"
        )
    waiting = backlog(store.conn, NOW, call_limit=10, token_limit=1_000_000).waiting
    assert waiting == (2 if is_postgres(store.conn) else 3)
