"""The current prompt of each agent session, kept for the turn-end hook.

An agent's transcript can lag its hooks: the record of the turn that just ended may not be
written yet when the turn-end hook runs. The prompt hook therefore stashes the prompt it
was given in ``$MEMEVO_HOME/sessions/<sha256(session_id)[:24]>.json`` (a 0700 dir, a 0600
file replaced atomically), and the turn-end hook falls back to it.

The stash holds one prompt per session, secrets redacted and at most
:data:`MAX_PROMPT_BYTES`, plus a digest of the prompt as typed to recognise its record in
the transcript. Stashes untouched for :data:`STASH_TTL` seconds are pruned, at most once per
:data:`PRUNE_EVERY` seconds; the session-end hook deletes its own. Nothing here raises: a
stash that cannot be written or read only costs the fallback.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

from cli.hooks.event import Frozen

# The interpreter's built-in SHA-256 (hashlib loads OpenSSL, about 5 ms of a prompt hook
# that needs no other hash); re-exported for the tests that compare it with hashlib.
from memory_core.ids import sha256_hex

SESSIONS_DIR = "sessions"
MAX_PROMPT_BYTES = 32_000
STASH_TTL = 86_400.0
PRUNE_EVERY = 3_600.0
MAX_PRUNED_PER_RUN = 512
_PRUNE_MARKER = ".pruned"


class StashedPrompt(Frozen):
    """The last prompt a session's prompt hook saw (a :class:`~cli.hooks.event.Frozen` record:
    the prompt hook, which only writes it, need not pay for defining a named tuple)."""

    fields = ("prompt", "prompt_id", "prompt_digest", "at")
    prompt: str
    prompt_id: str | None
    prompt_digest: str
    at: float

    def __init__(self, prompt: str, prompt_id: str | None, prompt_digest: str, at: float) -> None:
        self._set(prompt=prompt, prompt_id=prompt_id, prompt_digest=prompt_digest, at=at)


def prompt_digest(text: str) -> str:
    """Recognises a prompt again (whitespace at the ends ignored) without storing it twice."""
    return sha256_hex(text.strip().encode("utf-8", errors="surrogatepass"))[:32]


def stash_path(home: Path, session_id: str) -> Path:
    """The stash file of ``session_id`` (the name reveals nothing of the id)."""
    name = sha256_hex(session_id.encode("utf-8", errors="surrogatepass"))[:24]
    return home / SESSIONS_DIR / f"{name}.json"


def write_prompt(home: Path, session_id: str, prompt: str, prompt_id: str | None, now: float) -> bool:
    """Replace the session's stash with ``prompt``; False if it could not be written."""
    from memory_core.paths import private_temp_file
    from memory_core.privacy.private_text import strip_private
    from memory_core.privacy.sanitize import redact_clipped, valid_text
    from memory_core.store.engines.connection import ensure_private_dir

    # The digest is of the prompt as typed (the transcript holds the same text); what is
    # written is valid UTF-8, without private parts, redacted and bounded (the hook's input is made valid only
    # after the adapter that writes this has run).
    record = {
        "v": 1,
        "prompt_id": prompt_id,
        "prompt_digest": prompt_digest(prompt),
        "prompt": redact_clipped(strip_private(valid_text(prompt)), MAX_PROMPT_BYTES),
        "at": now,
    }
    path = stash_path(home, session_id)
    try:
        directory = ensure_private_dir(path.parent)
        fd, tmp = private_temp_file(directory, ".stash-", ".tmp")
    except OSError:
        return False
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(record, handle, ensure_ascii=False)
        os.chmod(tmp, 0o600)
        os.utime(tmp, (now, now))  # pruning compares modification times with ``now``
        os.replace(tmp, path)
    except (OSError, ValueError):
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        return False
    _prune(directory, now, keep=path.name)
    return True


def read_prompt(home: Path, session_id: str) -> StashedPrompt | None:
    """The session's stashed prompt, or ``None`` if there is none (or it is unreadable)."""
    try:
        with open(stash_path(home, session_id), encoding="utf-8") as handle:
            data = json.loads(handle.read(MAX_PROMPT_BYTES * 2 + 4096))
        prompt, prompt_id, digest, at = data["prompt"], data.get("prompt_id"), data["prompt_digest"], data["at"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not (isinstance(prompt, str) and isinstance(digest, str) and isinstance(at, int | float)):
        return None
    return StashedPrompt(prompt, prompt_id if isinstance(prompt_id, str) else None, digest, float(at))


def forget_session(home: Path, session_id: str) -> None:
    """Delete the session's stash and its standing record, if any."""
    with contextlib.suppress(OSError):
        os.unlink(stash_path(home, session_id))
    with contextlib.suppress(OSError):
        os.unlink(standing_path(home, session_id))


def standing_path(home: Path, session_id: str) -> Path:
    """The file recording which claims the session's standing digest gave (beside its stash)."""
    path = stash_path(home, session_id)
    return path.with_name(path.stem + ".standing.json")


def write_standing(home: Path, session_id: str, claim_ids: list[str], now: float) -> bool:
    """Record that the session was given its standing digest with ``claim_ids`` (maybe none);
    the per-turn digest of the session leaves those claims out. False if it could not be written."""
    from memory_core.paths import private_temp_file
    from memory_core.store.engines.connection import ensure_private_dir

    path = standing_path(home, session_id)
    try:
        directory = ensure_private_dir(path.parent)
        fd, tmp = private_temp_file(directory, ".stash-", ".tmp")
    except OSError:
        return False
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump({"v": 1, "claims": [str(c) for c in claim_ids[:64]], "at": now}, handle)
        os.chmod(tmp, 0o600)
        os.utime(tmp, (now, now))
        os.replace(tmp, path)
    except (OSError, ValueError):
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        return False
    _prune(directory, now, keep=path.name)
    return True


def read_standing(home: Path, session_id: str) -> tuple[str, ...] | None:
    """The claim ids the session's standing digest gave, or ``None`` when it was given none yet."""
    try:
        with open(standing_path(home, session_id), encoding="utf-8") as handle:
            data = json.loads(handle.read(16_384))
        claims = data["claims"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not isinstance(claims, list):
        return None
    return tuple(c for c in claims if isinstance(c, str))


def _prune(directory: Path, now: float, keep: str) -> None:
    """Delete stashes (and leftover temp files) older than the TTL; cheap and bounded."""
    marker = directory / _PRUNE_MARKER
    try:
        if now - marker.stat().st_mtime < PRUNE_EVERY:
            return
    except OSError:
        pass
    try:
        marker.touch(mode=0o600)
        os.utime(marker, (now, now))
        with os.scandir(directory) as entries:
            for count, entry in enumerate(entries):
                if count >= MAX_PRUNED_PER_RUN:
                    break
                if entry.name not in (_PRUNE_MARKER, keep) and now - entry.stat().st_mtime > STASH_TTL:
                    with contextlib.suppress(OSError):
                        os.unlink(entry.path)
    except OSError:
        pass
