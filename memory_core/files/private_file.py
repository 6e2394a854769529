"""A private file replaced whole: written under a name of its own, then renamed into place.

For caches a reader may open at any moment (the regex and module caches of the hook path):
a reader sees the old file or the new one, never a half-written one. The temporary name
carries the process id and random bytes and is created exclusively, so two writers (two
processes of one pid in different pid namespaces sharing a state dir) never write into the
same file. 0600 whatever the umask, like every file in the state dir. No sync: a cache lost
to a power cut is only built again. Standard library only (the hooks load it).
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (docs/hooks.md, "Cost")
if TYPE_CHECKING:
    from collections.abc import Iterable


def replace_privately(path: str, chunks: Iterable[bytes]) -> None:
    """Make ``path`` hold ``chunks``, one after the other, 0600; raises ``OSError`` (the old
    file, if any, is then left as it was and no temporary file stays behind)."""
    temporary = f"{path}.{os.getpid()}.{os.urandom(6).hex()}.tmp"
    try:
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
        fd = os.open(temporary, flags, 0o600)
        with os.fdopen(fd, "wb") as handle:
            os.fchmod(handle.fileno(), 0o600)
            for chunk in chunks:
                handle.write(chunk)
        os.replace(temporary, path)
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)
