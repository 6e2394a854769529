"""A damaged ``memory.db``, as `memevo doctor` reports it: SQLite's own words for the damage,
and the newest copy in ``backups/`` that passes its check, with the command that puts it back.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

from memory_core.clock import iso
from memory_core.store.safekeeping.backups import backups_dir, newest_good_backup
from memory_core.store.safekeeping.damage import damage_phrase


def damage_report(home: Path, problem: str, newest_version: int) -> dict[str, Any]:
    """The summary line, the fix and the details for a damaged SQLite store."""
    problem = damage_phrase(problem)
    good = newest_good_backup(backups_dir(home), newest_version)
    if good is None:
        kept = shlex.quote(str(home / "memory.db"))
        return {
            "summary": f"memory.db is damaged ({problem}) and backups/ holds no copy that passes its check",
            "fix": f"mv {kept} {kept}.broken  # keeps it for recovery (sqlite3 … .recover); memevo starts afresh",
            "backup": None,
        }
    return {
        "summary": f"memory.db is damaged ({problem}); newest good backup: {good.path.name} ({iso(good.made_at)})",
        "fix": f"memevo restore {shlex.quote(good.path.name)}  # keeps the damaged file in damaged/, then stores "
        "the captures hooks kept in spool/ meanwhile",
        "backup": {"path": str(good.path), "made_at": iso(good.made_at), "schema_version": good.schema_version},
    }
