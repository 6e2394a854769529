"""Hook events kept for the gateway while it is down: the ``spool/`` dir of the state dir.

On a PostgreSQL machine a capture hook that cannot reach ``memevo serve`` writes its event
here instead (:func:`spool_event`): one file per event, mode 0600 in a 0700 dir, written to
a temporary name, flushed to disk and renamed into place, so a file is either whole or
absent. A file holds one JSON header line (the event, the adapter and the time of the event)
and then the payload's raw bytes, without the text its person marked ``<private>``
(memory_core.privacy.private_text). Names sort by the time they were written.

The spool is bounded (:data:`MAX_FILES`, :data:`MAX_BYTES`): when full, the oldest events
are dropped and the drop is logged with its count in ``logs/hooks.log``.

``memevo serve`` delivers the spool (:func:`drain`) when it starts and then periodically:
each event goes through the hook's own code with its original time, and its file is removed
only once it was delivered. Delivering an event twice stores one source (capture dedupes by
deterministic ids), so a crash between the delivery and the removal costs nothing. A file
that cannot be read as an event is set aside in ``spool/corrupt/`` for a person, not retried.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (docs/hooks.md, "Cost")
if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    Log = Callable[..., None]  # cli.hooks.entry.log_failure, passed in (the entry reaches this module)

SPOOL_DIR = "spool"
CORRUPT_DIR = "corrupt"
SUFFIX = ".hook"
MAX_FILES = 2_000
MAX_BYTES = 64_000_000
FORMAT = 1


class Spooled(tuple):  # type: ignore[type-arg]
    """One spooled event: ``(path, raw, event, adapter, now)``."""

    __slots__ = ()

    def __new__(cls, path: Path, raw: bytes, event: str | None, adapter: str | None, now: float) -> Spooled:
        return tuple.__new__(cls, (path, raw, event, adapter, now))

    @property
    def path(self) -> Path:
        return self[0]  # type: ignore[no-any-return]

    @property
    def raw(self) -> bytes:
        return self[1]  # type: ignore[no-any-return]

    @property
    def event(self) -> str | None:
        return self[2]  # type: ignore[no-any-return]

    @property
    def adapter(self) -> str | None:
        return self[3]  # type: ignore[no-any-return]

    @property
    def now(self) -> float:
        return self[4]  # type: ignore[no-any-return]


class CorruptSpoolFile(Exception):
    """A spool file that is not one event; the message says what is wrong."""


def spool_dir(home: Path) -> Path:
    return home / SPOOL_DIR


def pending(home: Path) -> list[Path]:
    """The spooled events, oldest first."""
    directory = spool_dir(home)
    try:
        names = sorted(name for name in os.listdir(directory) if name.endswith(SUFFIX) and not name.startswith("."))
    except OSError:
        return []
    return [directory / name for name in names]


def encode(raw: bytes, event: str | None, adapter: str | None, now: float) -> bytes:
    import json

    header = json.dumps({"format": FORMAT, "event": event, "agent": adapter, "now": now}, ensure_ascii=True)
    return header.encode("ascii") + b"\n" + raw


def decode(path: Path, data: bytes) -> Spooled:
    """The event a spool file holds, or :class:`CorruptSpoolFile`."""
    import json

    header, sep, raw = data.partition(b"\n")
    if not sep:
        raise CorruptSpoolFile("no header line")
    try:
        fields = json.loads(header.decode("ascii"))
    except (UnicodeDecodeError, ValueError):
        raise CorruptSpoolFile("the header is not JSON") from None
    if not isinstance(fields, dict) or fields.get("format") != FORMAT:
        raise CorruptSpoolFile("not a spooled event of this version")
    event, adapter, now = fields.get("event"), fields.get("agent"), fields.get("now")
    from memory_core.clock import is_timestamp

    if not (event is None or isinstance(event, str)) or not (adapter is None or isinstance(adapter, str)):
        raise CorruptSpoolFile("the event or agent is not text")
    if not is_timestamp(now):
        raise CorruptSpoolFile("no time of the event")
    return Spooled(path, raw, event, adapter, float(now))


def excluded_payload(home: Path, raw: bytes) -> bool:
    """Whether a hook's payload comes from a directory the ``exclude`` setting names
    (memory_core.privacy.exclusion); parsed only when something is excluded."""
    from memory_core.privacy.exclusion import exclude_globs, excluded_by

    globs = exclude_globs(home)
    if not globs:
        return False
    import json

    try:
        payload = json.loads(raw)
    except (ValueError, RecursionError):
        return False
    cwd = payload.get("cwd") if isinstance(payload, dict) else None
    return isinstance(cwd, str) and excluded_by(cwd, globs) is not None


def spool_event(home: Path, raw: bytes, event: str | None, adapter: str | None, now: float, log: Log) -> Path:
    """Keep one event for the gateway, durably; returns its file."""
    from memory_core.paths import private_temp_file
    from memory_core.privacy.private_text import strip_private_json
    from memory_core.store.engines.connection import ensure_private_dir

    directory = ensure_private_dir(spool_dir(home))
    data = encode(strip_private_json(raw), event, adapter, now)  # nothing private waits on disk
    _make_room(home, len(data), log)
    fd, temp = private_temp_file(directory, ".tmp-")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        final = directory / f"{int(now * 1_000_000):020d}-{os.getpid()}-{os.urandom(4).hex()}{SUFFIX}"
        os.rename(temp, final)
    except BaseException:
        try:
            os.unlink(temp)
        except OSError:
            pass
        raise
    from memory_core.files.durable_files import sync_dir  # only when an event is spooled

    sync_dir(directory)
    return final


def _make_room(home: Path, incoming: int, log: Log) -> None:
    """Drop the oldest events until one more of ``incoming`` bytes fits; log how many."""
    files = pending(home)
    sizes = []
    for path in files:
        try:
            sizes.append(path.stat().st_size)
        except OSError:
            sizes.append(0)
    total = sum(sizes)
    dropped = 0
    while files and (len(files) - dropped >= MAX_FILES or total + incoming > MAX_BYTES):
        try:
            os.unlink(files[dropped])
        except OSError:
            pass
        total -= sizes[dropped]
        dropped += 1
    if dropped:
        log(
            f"spool full ({MAX_FILES} events or {MAX_BYTES} bytes): dropped the {dropped} oldest spooled "
            "event(s); `memevo serve` delivers the rest (on SQLite also `memevo restore` and a starting worker)"
        )


def set_aside(path: Path, why: str, log: Log) -> None:
    """Move a spool file that is not an event (or cannot ever be delivered) to
    ``spool/corrupt/`` and log why."""
    from memory_core.store.engines.connection import ensure_private_dir

    corrupt = ensure_private_dir(path.parent / CORRUPT_DIR)
    try:
        os.replace(path, corrupt / path.name)
    except OSError:
        pass
    log(f"spool: {path.name} set aside in {SPOOL_DIR}/{CORRUPT_DIR}/: {why}")


def drain(home: Path, deliver: Callable[[Spooled], bool], log: Log, *, wait: float = 0.0) -> tuple[int, int]:
    """Deliver every spooled event, oldest first, removing each file once ``deliver`` says it
    was delivered; stops at the first event ``deliver`` could not deliver yet (``False``: it
    is tried again next time). A file that is not an event, or that ``deliver`` refuses for
    good (:class:`CorruptSpoolFile`), is set aside. Only one drain runs per state dir at a
    time (a lock file): while another holds it, this one waits up to ``wait`` seconds (for
    that one to finish: a command that reports what it stored), else returns at once.
    Returns ``(delivered, set aside)``."""
    import fcntl
    import time

    directory = spool_dir(home)
    if not pending(home):
        return 0, 0
    delivered = aside = 0
    lock_fd = os.open(directory / ".lock", os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o600)
    try:
        deadline = time.monotonic() + wait
        while True:
            try:
                fcntl.flock(lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError:
                if time.monotonic() >= deadline:
                    return 0, 0  # another drain is at work
                time.sleep(0.05)
        for path in pending(home):
            try:
                with open(path, "rb") as handle:
                    data = handle.read()
            except FileNotFoundError:
                continue
            try:
                if not deliver(decode(path, data)):
                    break
            except CorruptSpoolFile as exc:
                set_aside(path, str(exc), log)
                aside += 1
                continue
            try:
                os.unlink(path)
            except FileNotFoundError:
                pass
            delivered += 1
    finally:
        os.close(lock_fd)  # releases the lock
    return delivered, aside
