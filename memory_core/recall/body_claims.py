"""The claims of the bodies recall scored, read in rank order a page at a time.

A body's claims are read per kind and grade (pin, evidence priority, verdicts) through the
index on (body, kind, grade, clock): within one such group freshness falls with the clock,
so the group's claims come in rank order and reading can stop at any point.
"""

from __future__ import annotations

from memory_core.recall import index
from memory_core.recall.aging import freshness, is_dormant
from memory_core.recall.index import IndexedDoc
from memory_core.recall.rank import rank_score
from memory_core.store.engines.dbapi import DbConn

# Claims of a group read by the first page; each later page is twice the one before.
FIRST_PAGE = 4


class ClaimStream:
    """The awake claims of one body, kind and grade in rank order, read a page at a time."""

    def __init__(self, conn: DbConn, body: str, kind: str, grade: int, raw: float, now: float, dormant: bool) -> None:
        self.conn, self.body, self.kind, self.grade = conn, body, kind, grade
        self.raw, self.now, self.dormant = raw, now, dormant
        self.rows: list[tuple[float, IndexedDoc]] = []
        self.pos = 0
        self.offset = 0
        self.page = FIRST_PAGE
        self.ended = False

    def _fill(self) -> None:
        docs = index.read_ranked(self.conn, self.body, self.kind, self.grade, self.offset, self.page)
        self.offset += len(docs)
        self.page *= 2
        self.load(docs, ended=len(docs) < self.page // 2)

    def load(self, docs: list[IndexedDoc], *, ended: bool) -> None:
        """Rank ``docs`` (the next ones in clock order) and keep the awake ones."""
        self.ended = ended
        for doc in docs:
            pinned = bool(doc.pinned)
            if not self.dormant and is_dormant(doc.kind, doc.clock_at, self.now, pinned=pinned):
                self.ended = True  # older clocks follow: all dormant
                return
            fresh = freshness(doc.kind, doc.clock_at, self.now, pinned=pinned)
            self.rows.append((rank_score(self.raw, fresh, doc.priority, doc.utility, doc.accuracy), doc))

    def head(self) -> float | None:
        """The rank of the next claim (``None`` when none is left)."""
        while self.pos >= len(self.rows) and not self.ended:
            self._fill()
        return self.rows[self.pos][0] if self.pos < len(self.rows) else None

    def take_from(self, floor: float) -> list[IndexedDoc]:
        """The next claims ranked at least ``floor``."""
        taken = []
        while (rank := self.head()) is not None and rank >= floor:
            taken.append(self.rows[self.pos][1])
            self.pos += 1
        return taken


class BodyStreams:
    """Scored bodies: their relevance, and their claims' streams once asked for."""

    def __init__(self, conn: DbConn, now: float, include_dormant: bool) -> None:
        self.conn, self.now, self.include_dormant = conn, now, include_dormant
        self.streams: dict[str, list[ClaimStream]] = {}

    def open(self, body: str, raw: float) -> list[ClaimStream]:
        streams = self.streams.get(body)
        if streams is None:
            streams = self.streams[body] = [
                ClaimStream(self.conn, body, kind, grade, raw, self.now, self.include_dormant)
                for kind, grade in index.read_grades(self.conn, body)
            ]
        return streams

    def awake(self, body: str, raw: float) -> bool:
        return any(s.head() is not None for s in self.open(body, raw))

    def prefetch(self, raws: dict[str, float]) -> None:
        """Streams of bodies held by one claim each (``raws``: their relevance), from one read:
        where content seldom repeats, most bodies are such."""
        todo = [body for body in raws if body not in self.streams]
        for body, doc in index.read_body_claims(self.conn, todo):
            stream = ClaimStream(self.conn, body, doc.kind, 0, raws[body], self.now, self.include_dormant)
            stream.load([doc], ended=True)
            self.streams[body] = [stream]
