"""``logs/hooks.log`` in the state dir: what a hook could not do, or dropped, and why."""

from __future__ import annotations

# The log is bounded like memevo's other logs: past this size the oldest lines go (three
# quarters are kept), so a hook failing on every turn cannot fill the disk.
MAX_BYTES = 1_000_000


def log_failure(message: str, detail: str | None = None) -> None:
    """Append to logs/hooks.log in the state dir (bounded, 0600); never raises."""
    try:
        from memory_core import clock
        from memory_core.files.jsonl_log import append
        from memory_core.paths import state_home
        from memory_core.store.engines.connection import ensure_private_dir

        logs = ensure_private_dir(state_home() / "logs")
        text = f"{clock.iso(clock.now())} {message}"
        if detail:
            text += "\n" + detail.rstrip()
        line = text.encode("utf-8", errors="backslashreplace")
        append(logs / "hooks.log", logs / ".hooks.lock", line, max_bytes=MAX_BYTES)
    except Exception:
        pass
