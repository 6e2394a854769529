"""An optional gate: claims a model learned are not recalled until a person approves them.

Off by default (setting ``review_before_recall``). When on, a claim that recall selected is
held back while it is *pending review*: its current content was inferred by a model
(evidence method ``model``) in a consolidation event after the review watermark, and that
item was not approved (memory_core/controls/review.py). On a team store the watermark and
approvals are the current person's own (memory_core.store.tables.review_marks): a claim another
member approved is still held back for someone who has not seen it. Held-back claims are dropped from
the result and the digest is drawn again from the rest; recall does not reach further down
its ranking to fill their places, so a held-back claim leaves a gap instead of letting a
weaker claim in. The trade-off (docs/ui.md): nothing a model inferred reaches an agent
unseen, and new lessons help only after a review.

A separate filter on recall's result, standard library only (the per-turn hook runs it):
one indexed lookup of the claim's source events for each selected model claim, none when
the gate is off.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from memory_core.store.engines.dbapi import DbConn

if TYPE_CHECKING:
    from memory_core.recall.results import RecallResult

SETTING = "review_before_recall"
VARIABLE = "MEMEVO_REVIEW_BEFORE_RECALL"
TRUE_WORDS = frozenset({"1", "true", "yes", "on", "t", "y"})
FALSE_WORDS = frozenset({"0", "false", "no", "off", "f", "n"})


def _enabled_word(value: object) -> bool:
    # A value the settings would refuse (status and doctor report it) keeps the gate closed:
    # whoever wrote it meant to turn it on or off, and on is the cautious reading.
    if isinstance(value, bool):
        return value
    return str(value).strip().lower() not in FALSE_WORDS


def gate_enabled(home: Path, env: Mapping[str, str] | None = None) -> bool:
    """Whether ``review_before_recall`` is on, read as the settings read it (environment over
    ``config.toml``) without loading them; the file is parsed only when it names the setting."""
    env = os.environ if env is None else env
    raw = (env.get(VARIABLE) or "").strip()
    if raw:
        return _enabled_word(raw)
    from memory_core.config_file import config_data

    try:
        data = config_data(home, SETTING)
    except (OSError, UnicodeDecodeError):
        return False
    except ValueError:  # not TOML, though it names the setting: keep learned claims back
        return True
    return data is not None and SETTING in data and _enabled_word(data[SETTING])


def pending_review(conn: DbConn, memory_id: str, source_id: str | None, through: int, approved: frozenset[str]) -> bool:
    """Whether a model event after the watermark created this claim (as new content) and
    that item is not approved."""
    if not source_id:
        return False
    from memory_core.store.tables.review_marks import item_key

    rows = conn.execute(
        "SELECT id, body FROM events WHERE source_id = ? AND id > ? AND actor = 'model'", (source_id, through)
    ).fetchall()
    for event_id, body in rows:
        if item_key(int(event_id), memory_id) in approved:
            continue
        try:
            data = json.loads(body)
            before = {m.get("id") for m in data.get("before", [])}
            after = {m.get("id") for m in data.get("after", [])}
        except (ValueError, AttributeError, TypeError):
            return True  # an unreadable event cannot show the claim was reviewed
        if memory_id in after and memory_id not in before:
            return True
    return False


def hold_unreviewed(conn: DbConn, result: RecallResult) -> RecallResult:
    """``result`` without the claims pending review, its digest drawn again; the same
    object when none is held back."""
    claims = result.claims
    model_claims = [c for c in claims if c.evidence.endswith("/model")]
    if not model_claims:
        return result
    from memory_core.store.tables.review_marks import read_review_marks

    marks = read_review_marks(conn)
    held = {
        c.memory_id
        for c in model_claims
        if pending_review(conn, c.memory_id, c.source_id, marks.through, marks.approved)
    }
    if not held:
        return result
    # Here, not at the top: the session start reads the gate without the digest's tokenizer.
    from memory_core.recall.digest import DigestRow, render_digest
    from memory_core.recall.rows import load_claims

    kept = [c for c in claims if c.memory_id not in held]
    notes: list[str] = []
    loaded = load_claims(conn, [c.memory_id for c in kept], notes)
    rows = [
        DigestRow(
            c.memory_id,
            c.kind,
            c.status,
            c.origin,
            c.source_id,
            _day(c.updated_at),
            c.evidence,
            c.freshness,
            c.dormant,
            loaded[c.memory_id].accuracy,
            loaded[c.memory_id].content,
            c.matched,
        )
        for c in kept
        if c.memory_id in loaded
    ]
    kept = [c for c in kept if c.memory_id in loaded]
    digest, shown = render_digest(rows) if result.digest else ("", 0)
    diagnostics = dict(result.diagnostics)
    diagnostics["digest"] = {"claims": shown, "bytes": len(digest.encode("utf-8"))}
    diagnostics["notes"] = [
        *diagnostics.get("notes", []),
        *notes,
        f"held back {len(held)} claim(s) a model learned, pending review (review_before_recall)",
    ]
    diagnostics["held_for_review"] = sorted(held)
    return result._replace(claims=kept, digest=digest, diagnostics=diagnostics)


def _day(at: float) -> str:
    from memory_core.clock import iso

    return (iso(at) or "")[:10]
