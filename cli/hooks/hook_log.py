"""``logs/hooks.log`` in the state dir: what a hook could not do, or dropped, and why."""

from __future__ import annotations


def log_failure(message: str, detail: str | None = None) -> None:
    """Append to logs/hooks.log in the state dir; never raises."""
    try:
        from memory_core import clock
        from memory_core.paths import state_home
        from memory_core.store.engines.connection import ensure_private_dir

        logs = ensure_private_dir(state_home() / "logs")
        path = logs / "hooks.log"
        with open(path, "a", encoding="utf-8", errors="backslashreplace") as handle:
            handle.write(f"{clock.iso(clock.now())} {message}\n")
            if detail:
                handle.write(detail.rstrip() + "\n")
        path.chmod(0o600)
    except Exception:
        pass
