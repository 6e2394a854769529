"""The standing digest: the conventions that apply to every task of a project, given once at
the start of a session.

Per-turn recall finds claims by the words of a prompt, and "add a date library" shares no
word with "use pnpm, not npm". So a session starts with the project's active preferences and
decisions (its own origin and the path origins that are its aliases), plus the person's
general preferences: those stated in a directory that encloses this one (the home directory,
say), whatever the project. Only active claims are read, so of anything replaced only the
newest version is there; a dormant claim, one held back by the review gate
(``review_before_recall``) and one whose checkout has outgrown it (:mod:`.checkout_check`)
are left out. The rest is ranked by evidence (a user's own words over a model's inference),
confirmation (the aging clock: a reaffirmed claim is fresh) and feedback, pinned claims
first, and rendered within a bound (``standing_digest``, about 1 KB), each row with its id.

Standard library only: the session-start hook runs it. Reads are bounded: at most
:data:`MAX_CANDIDATES` claims of the project (newest first, one indexed lookup per origin),
and claims are loaded in small batches only until the bound is full.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from memory_core.clock import iso
from memory_core.recall.aging import freshness, is_dormant
from memory_core.recall.rows import ClaimRow, load_claims
from memory_core.store.engines.dbapi import DbConn
from memory_core.store.schema.owners import visible_clause

STANDING_KINDS = ("preference", "decision")
GENERAL_KINDS = ("preference",)
MAX_CANDIDATES = 1000
MAX_ANCESTORS = 64
LOAD_BATCH = 16
MAX_TEXT_BYTES = 240
MIN_TEXT_BYTES = 64

OPEN = "<memevo-standing>"
CLOSE = "</memevo-standing>"
GUIDANCE = (
    "Standing conventions memevo recorded for this project and for the user in earlier sessions "
    "(the newest version of each; ids for feedback). Apply them where they fit unless the user now "
    "says otherwise; they are records, not instructions from this message."
)
_FENCE_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026"}

# The ranking factors of memory_core.recall.rank, written out: importing that module loads the
# recall index and the tokenizer, which a session start that ranks a few conventions does not
# need (tests/recall/test_standing.py compares them).
PRIORITY_STEP = 0.04
UTILITY_FACTORS = {"useful": 1.05, "unhelpful": 0.90}
ACCURACY_FACTORS = {"accurate": 1.05, "incorrect": 0.50}
MAX_LABEL_BYTES = 96
ELLIPSIS = "…"

# Says why a claim found stale is left out: the names it gives that the checkout lacks.
StaleCheck = Callable[[str, str], Sequence[str]]


class Standing(
    NamedTuple(
        "Standing",
        [
            ("memory_id", str),
            ("origin", str),
            ("kind", str),
            ("clock_at", float),
            ("pinned", bool),
            ("priority", int),
            ("utility", str | None),
            ("accuracy", str | None),
            ("general", bool),
            ("freshness", float),
            ("score", float),
        ],
    )
):
    """One candidate of the standing digest with what ranked it."""

    __slots__ = ()


class StandingResult(
    NamedTuple(
        "StandingResult",
        [
            ("digest", str),
            ("shown", list[str]),
            ("decisions", list[dict[str, Any]]),
            ("project", str),
            ("candidates", int),
        ],
    )
):
    """The digest ('' when nothing), the ids shown in order, a verdict per claim considered,
    the project and how many candidates were read."""

    __slots__ = ()

    def as_dict(self) -> dict[str, Any]:
        return {
            "project": self.project,
            "digest": self.digest,
            "bytes": len(self.digest.encode("utf-8")),
            "shown": list(self.shown),
            "candidates": self.candidates,
            "decisions": self.decisions,
        }


def enclosing_directories(directory: str, group: Sequence[str]) -> list[str]:
    """The real directories enclosing ``directory`` (itself included, nearest first) that are
    not origins of its project's group: where a general preference may have been stated."""
    real = os.path.realpath(os.path.expanduser(directory)) if directory else ""
    if not real.startswith("/"):
        return []
    found: list[str] = []
    current = real
    for _ in range(MAX_ANCESTORS):
        if current not in group:
            found.append(current)
        parent = os.path.dirname(current)
        if parent == current:
            break
        current = parent
    return found


def clip_bytes(text: str, limit: int) -> str:
    """At most ``limit`` UTF-8 bytes, ending in an ellipsis when cut, never mid-character."""
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text
    room = max(0, limit - len(ELLIPSIS.encode("utf-8")))
    return data[:room].decode("utf-8", errors="ignore").rstrip() + ELLIPSIS


def standing_score(
    kind: str, clock_at: float, now: float, pinned: bool, priority: int, utility: str | None, accuracy: str | None
) -> tuple[float, float]:
    """``(freshness, score)``: evidence weight × feedback factors × freshness (the confirmation clock)."""
    fresh = freshness(kind, clock_at, now, pinned=pinned)
    weight = (1.0 + PRIORITY_STEP * priority) * UTILITY_FACTORS.get(utility or "", 1.0)
    return fresh, weight * ACCURACY_FACTORS.get(accuracy or "", 1.0) * fresh


def read_candidates(conn: DbConn, group: Sequence[str], general: Sequence[str], now: float) -> list[Standing]:
    """The project's active preferences and decisions and the general preferences, ranked
    (pinned first, then score, then the newer clock), dormant ones dropped."""
    found: dict[str, Standing] = {}
    mine, params = visible_clause(conn, "m")
    for origins, kinds, is_general in ((list(group), STANDING_KINDS, False), (list(general), GENERAL_KINDS, True)):
        if not origins:
            continue
        marks = ",".join("?" * len(origins))
        kind_marks = ",".join("?" * len(kinds))
        rows = conn.execute(
            "SELECT d.memory_id, d.origin, d.kind, d.clock_at, d.pinned, d.priority, d.utility, d.accuracy "
            f"FROM memories m JOIN index_docs d ON d.memory_id = m.id WHERE m.origin IN ({marks}) "
            f"AND m.status = 'active' AND m.kind IN ({kind_marks}){mine} ORDER BY m.updated_at DESC LIMIT ?",
            [*origins, *kinds, *params, MAX_CANDIDATES],
        ).fetchall()
        for memory_id, origin, kind, clock_at, pinned, priority, utility, accuracy in rows:
            if memory_id in found or is_dormant(kind, float(clock_at), now, pinned=bool(pinned)):
                continue
            fresh, score = standing_score(kind, float(clock_at), now, bool(pinned), int(priority), utility, accuracy)
            found[memory_id] = Standing(
                memory_id,
                origin,
                kind,
                float(clock_at),
                bool(pinned),
                int(priority),
                utility,
                accuracy,
                is_general,
                fresh,
                score,
            )
    return sorted(found.values(), key=lambda s: (not s.pinned, -s.score, -s.clock_at, s.memory_id))


def _row_json(claim: ClaimRow, candidate: Standing, project: str, text_bytes: int) -> str:
    data: dict[str, object] = {"id": claim.memory_id, "kind": claim.kind}
    if claim.origin != project:
        data["origin"] = clip_bytes(claim.origin, MAX_LABEL_BYTES)
    data["updated"] = (iso(claim.updated_at) or "")[:10]
    if claim.method == "model":
        data["provisional"] = True
    if candidate.pinned:
        data["pinned"] = True
    data["text"] = clip_bytes(" ".join(claim.content.split()), text_bytes)
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    for raw, escaped in _FENCE_ESCAPES.items():
        text = text.replace(raw, escaped)
    return text


def _fitted_row(claim: ClaimRow, candidate: Standing, project: str, room: int) -> str | None:
    """The claim's row within ``room`` bytes, its text clipped down to :data:`MIN_TEXT_BYTES`; None if it cannot fit."""
    budget = MAX_TEXT_BYTES
    line = _row_json(claim, candidate, project, budget)
    while len(line.encode("utf-8")) > room and budget > MIN_TEXT_BYTES:
        budget = max(MIN_TEXT_BYTES, budget - (len(line.encode("utf-8")) - room) - 4)
        line = _row_json(claim, candidate, project, budget)
    return line if len(line.encode("utf-8")) <= room else None


def standing_digest(
    conn: DbConn,
    *,
    project: str,
    group: Sequence[str],
    general: Sequence[str],
    now: float,
    max_bytes: int,
    held_back: Callable[[ClaimRow], bool] | None = None,
    stale: StaleCheck | None = None,
) -> StandingResult:
    """The standing digest of ``project`` (its origins ``group``) and the general preferences of
    the directories ``general``, within ``max_bytes`` (0: off, nothing read).

    ``held_back`` says whether the review gate holds a loaded claim back; ``stale`` names what a
    claim of the project names that its checkout no longer has (checked on project claims only).
    """
    if max_bytes <= 0:
        return StandingResult("", [], [], project, 0)
    candidates = read_candidates(conn, group, general, now)
    decisions: list[dict[str, Any]] = []
    frame = f"{OPEN}\n{GUIDANCE}\n{CLOSE}"
    remaining = max_bytes - len(frame.encode("utf-8"))
    lines: list[str] = []
    shown: list[str] = []
    full = False
    for start in range(0, len(candidates), LOAD_BATCH):
        if full:
            break
        batch = candidates[start : start + LOAD_BATCH]
        notes: list[str] = []
        loaded = load_claims(conn, [c.memory_id for c in batch], notes)
        for candidate in batch:
            verdict: dict[str, Any] = {
                "id": candidate.memory_id,
                "kind": candidate.kind,
                "origin": candidate.origin,
                "general": candidate.general,
                "pinned": candidate.pinned,
                "freshness": round(candidate.freshness, 4),
                "score": round(candidate.score, 4),
            }
            decisions.append(verdict)
            claim = loaded.get(candidate.memory_id)
            if claim is None:
                verdict["verdict"] = "unreadable"
                continue
            if full:
                verdict["verdict"] = "over_bound"
                continue
            if held_back is not None and held_back(claim):
                verdict["verdict"] = "held_for_review"
                continue
            missing = list(stale(claim.origin, claim.content)) if stale is not None and not candidate.general else []
            if missing:
                verdict["verdict"] = "stale"
                verdict["missing"] = missing
                continue
            line = _fitted_row(claim, candidate, project, remaining - 1)
            if line is None:
                verdict["verdict"] = "over_bound"
                full = True
                continue
            verdict["verdict"] = "shown"
            lines.append(line)
            shown.append(claim.memory_id)
            remaining -= len(line.encode("utf-8")) + 1
    # What was never reached is over the bound too: the explanation names every candidate.
    for candidate in candidates[len(decisions) :]:
        decisions.append(
            {
                "id": candidate.memory_id,
                "kind": candidate.kind,
                "origin": candidate.origin,
                "general": candidate.general,
                "pinned": candidate.pinned,
                "freshness": round(candidate.freshness, 4),
                "score": round(candidate.score, 4),
                "verdict": "over_bound",
            }
        )
    digest = "\n".join([OPEN, GUIDANCE, *lines, CLOSE]) if lines else ""
    return StandingResult(digest, shown, decisions, project, len(candidates))
