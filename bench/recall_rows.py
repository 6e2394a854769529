"""Rows read by recall, counted per statement: a connection wrapper that counts the rows each
(calling function, table) statement returned, and ``bench/hook_profile.py work`` built on it."""

from __future__ import annotations

import re
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

_TABLE = re.compile(r"\bFROM\s+(\w+)", re.IGNORECASE)


class CountingCursor:
    def __init__(self, cursor: Any, key: tuple[str, str], rows: Counter[tuple[str, str]]) -> None:
        self.cursor, self.key, self.rows = cursor, key, rows

    def __iter__(self) -> Any:
        for row in self.cursor:
            self.rows[self.key] += 1
            yield row

    def fetchall(self) -> list[Any]:
        out = self.cursor.fetchall()
        self.rows[self.key] += len(out)
        return out

    def fetchone(self) -> Any:
        row = self.cursor.fetchone()
        self.rows[self.key] += row is not None
        return row

    def fetchmany(self, size: int = 1) -> list[Any]:
        out = self.cursor.fetchmany(size)
        self.rows[self.key] += len(out)
        return out


class CountingConnection:
    """A connection that counts the rows each (calling function, table) statement returned."""

    def __init__(self, conn: Any) -> None:
        self.conn = conn
        self.rows: Counter[tuple[str, str]] = Counter()
        self.statements: Counter[tuple[str, str]] = Counter()

    def execute(self, sql: str, params: Any = ()) -> CountingCursor:
        caller = sys._getframe(1).f_code.co_name
        match = _TABLE.search(sql)
        key = (caller, match.group(1) if match else "?")
        self.statements[key] += 1
        return CountingCursor(self.conn.execute(sql, params), key, self.rows)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.conn, name)


def work(home: Path, questions: list[str], now: float) -> dict[str, Any]:
    """Per query, averaged over ``questions``: rows by (function, table), candidates, time."""
    from memory_core.recall.service import turn_recall
    from memory_core.store.engines.database import Store

    rows: Counter[tuple[str, str]] = Counter()
    statements: Counter[tuple[str, str]] = Counter()
    matched, scored, ms = [], [], []
    with Store.open_readonly(home) as store:
        for q in questions:
            turn_recall(store.conn, [q], now=now, session_is_fresh=True)  # warm the page cache
            counting = CountingConnection(store.conn)
            result = turn_recall(counting, [q], now=now, session_is_fresh=True)  # type: ignore[arg-type]
            rows.update(counting.rows)
            statements.update(counting.statements)
            lifecycle = result.diagnostics["lifecycle"]
            matched.append(lifecycle["matched"])
            scored.append(lifecycle["scored"])
            started = time.perf_counter()
            turn_recall(store.conn, [q], now=now, session_is_fresh=True)
            ms.append((time.perf_counter() - started) * 1000)
    n = len(questions)
    return {
        "queries": n,
        "median_ms": round(statistics.median(ms), 2),
        "matched_mean": round(statistics.fmean(matched)),
        "matched_max": max(matched),
        "scored_mean": round(statistics.fmean(scored)),
        "scored_max": max(scored),
        "rows_per_query": {f"{fn} {table}": round(c / n) for (fn, table), c in rows.most_common()},
        "statements_per_query": {f"{fn} {table}": round(c / n, 1) for (fn, table), c in statements.most_common(12)},
    }
