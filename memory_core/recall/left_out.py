"""What a turn's digest leaves out of the claims recall chose: those the session's standing
digest gave already (docs/standing.md), and those the checkout of the session's project has
outgrown (:mod:`.checkout_check`). Their places stay empty, as the review gate's do: no
weaker claim is drawn in. Standard library only: the per-turn hook runs it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

# What a claim ``(origin, content)`` names that the checkout no longer has (empty: not stale).
StaleCheck = Callable[[str, str], list[str]]


def leave_out(
    chosen: list[Any],
    loaded: dict[str, Any],
    exclude: frozenset[str],
    stale: StaleCheck | None,
    left_out: dict[str, Any],
    notes: list[str],
) -> list[Any]:
    """``chosen`` without the claims the session's standing digest gave already and those the
    checkout has outgrown; what was left out goes to the diagnostics (``in_standing``, ``stale``).
    Their places stay empty, as the review gate's do: no weaker claim is drawn in."""
    kept = []
    in_standing: list[str] = []
    found_stale: list[dict[str, Any]] = []
    for c in chosen:
        memory_id = c.doc.memory_id
        if memory_id in exclude:
            in_standing.append(memory_id)
            continue
        claim = loaded[memory_id]
        missing = list(stale(claim.origin, claim.content)) if stale is not None else []
        if missing:
            found_stale.append({"id": memory_id, "origin": claim.origin, "missing": missing})
            continue
        kept.append(c)
    if in_standing:
        left_out["in_standing"] = in_standing
        notes.append(f"left out {len(in_standing)} claim(s) the session's standing digest gave already")
    if found_stale:
        left_out["stale"] = found_stale
        for item in found_stale:
            notes.append(f"left out {item['id']}: stale, {', '.join(item['missing'])} no longer exists in the checkout")
    return kept
