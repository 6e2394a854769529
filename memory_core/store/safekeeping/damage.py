"""How SQLite says a database file's pages are damaged (SQLITE_CORRUPT, SQLITE_NOTADB,
SQLITE_IOERR), as opposed to a lock, a permission or a missing file. No imports: hooks use it."""

from __future__ import annotations

DAMAGE_PHRASES = ("database disk image is malformed", "file is not a database", "disk I/O error")
_DAMAGE_WORDS = ("malformed", "not a database", "disk i/o error", "corrupt")


def is_damage(message: str) -> bool:
    """Whether SQLite's ``message`` says the database's pages are damaged."""
    text = message.lower()
    return any(word in text for word in _DAMAGE_WORDS)


def damage_phrase(message: str) -> str:
    """SQLite's own phrase for the damage in ``message`` (which may wrap it), else the message."""
    lowered = message.lower()
    return next((phrase for phrase in DAMAGE_PHRASES if phrase.lower() in lowered), message)
