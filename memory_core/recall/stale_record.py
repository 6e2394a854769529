"""Where claims were last found stale, so the worker can offer them to the model to retire.

A hook that leaves a stale claim out (:mod:`.checkout_check`) knows the checkout it looked in;
the worker, which consolidates a project's new sources later and elsewhere, does not. So the
hook (and ``memevo check``) note each stale claim with the checkout root in
``cache/stale-claims.json`` of the state dir (private, at most :data:`MAX_ENTRIES`, newest
kept). The note is only a pointer: the worker looks in that checkout again before offering
the claim, so a file that came back meanwhile offers nothing. Writing it happens only when a
claim was found stale and never raises; standard library only.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import Any

FILE = "stale-claims.json"
MAX_ENTRIES = 256
MAX_BYTES = 256 * 1024


def record_path(home: Path) -> Path:
    return home / "cache" / FILE


def read_stale(home: Path) -> dict[str, dict[str, Any]]:
    """The noted stale claims by id: ``{"origin", "root", "missing", "at"}`` each (unreadable: none)."""
    try:
        with open(record_path(home), encoding="utf-8") as handle:
            data = json.loads(handle.read(MAX_BYTES))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {
        str(k): v
        for k, v in data.items()
        if isinstance(v, dict) and isinstance(v.get("origin"), str) and isinstance(v.get("root"), str)
    }


def remember_stale(home: Path, found: list[tuple[str, str, list[str]]], root: str, now: float) -> None:
    """Note each ``(claim id, origin, missing)`` as stale in the checkout ``root``. Never raises."""
    if not found:
        return
    try:
        from memory_core.paths import private_temp_file
        from memory_core.store.engines.connection import ensure_private_dir

        entries = read_stale(home)
        for memory_id, origin, missing in found:
            entries[memory_id] = {"origin": origin, "root": root, "missing": list(missing)[:16], "at": now}
        kept = dict(sorted(entries.items(), key=lambda item: -float(item[1].get("at") or 0))[:MAX_ENTRIES])
        directory = ensure_private_dir(record_path(home).parent)
        fd, tmp = private_temp_file(directory, ".stale-", ".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(kept, handle, ensure_ascii=False)
            os.chmod(tmp, 0o600)
            os.replace(tmp, record_path(home))
        except (OSError, ValueError):
            with contextlib.suppress(OSError):
                os.unlink(tmp)
    except Exception:  # a note for later must never cost the turn
        pass
