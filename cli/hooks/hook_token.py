"""The secret that ``memevo serve`` asks of every request, and how an agent's http hooks send it.

The token is ``$MEMEVO_HOOK_TOKEN`` when that is set (not blank), else the contents of
``hook-token`` in the state dir: 32 random bytes as 64 hex digits, made the first time they
are asked for (mode 0600 in the 0700 state dir, linked into place so two processes agree on one).
``memevo serve`` and ``memevo install claude-code --transport http`` read it the same way, so
the server and the hooks it answers hold the same secret.
"""

from __future__ import annotations

import hmac
import os
from collections.abc import Mapping
from pathlib import Path

TOKEN_VARIABLE = "MEMEVO_HOOK_TOKEN"
TOKEN_FILE = "hook-token"
TOKEN_BYTES = 32
MIN_TOKEN_CHARS = 32  # a token given by the environment must be at least this long


class TokenError(Exception):
    """The token cannot be read or made; the message says what to do."""


def token_path(home: Path) -> Path:
    return home / TOKEN_FILE


def hook_token(home: Path, env: Mapping[str, str] | None = None) -> str:
    """The token: ``$MEMEVO_HOOK_TOKEN``, else the state dir's ``hook-token`` (made if missing)."""
    env = os.environ if env is None else env
    given = (env.get(TOKEN_VARIABLE) or "").strip()
    if given:
        if len(given) < MIN_TOKEN_CHARS or not given.isprintable() or " " in given:
            raise TokenError(
                f"${TOKEN_VARIABLE} must be at least {MIN_TOKEN_CHARS} printable characters without spaces; "
                f"unset it to use the state dir's {TOKEN_FILE}"
            )
        return given
    return _file_token(token_path(home))


def _file_token(path: Path) -> str:
    from memory_core.paths import private_temp_file
    from memory_core.store.engines.connection import ensure_private_dir

    try:
        if path.is_file():
            return _read_token(path)
        ensure_private_dir(path.parent)
        fd, temp = private_temp_file(path.parent, f".{TOKEN_FILE}.")
        try:
            with os.fdopen(fd, "w", encoding="ascii") as handle:
                handle.write(os.urandom(TOKEN_BYTES).hex() + "\n")
            try:
                os.link(temp, path)  # never replaces: a token another process just made wins
            except FileExistsError:
                pass
        finally:
            os.unlink(temp)
        return _read_token(path)
    except OSError as exc:
        raise TokenError(f"cannot read or make the hook token {path}: {exc.strerror or exc}") from None


def _read_token(path: Path) -> str:
    text = path.read_text(encoding="ascii", errors="replace").strip()
    if len(text) < MIN_TOKEN_CHARS:
        raise TokenError(f"{path} holds no token; delete it and it is made again")
    if os.stat(path).st_mode & 0o077:
        os.chmod(path, 0o600)
    return text


def bearer_matches(header: str | None, token: str) -> bool:
    """Whether an ``Authorization`` header is ``Bearer <token>``, compared in constant time."""
    if not header:
        return False
    scheme, _, given = header.strip().partition(" ")
    if scheme.lower() != "bearer":
        return False
    return hmac.compare_digest(given.strip().encode("utf-8", "replace"), token.encode("utf-8"))
