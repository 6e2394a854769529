"""The hook path's module code kept in one file between hook processes.

A hook process imports 60-85 modules of its own and of the standard library. Reading each
one's bytecode costs the import system's path search, a ``stat`` of the source, opening and
reading the ``.pyc`` and checking its header: about 45 µs a module before any of its code
runs, 3-4 ms of every hook. :func:`save` keeps the code of the modules this process imported
from source files in one file; :func:`preload` (run before the hook imports anything) puts a
finder first in :data:`sys.meta_path` that hands the import system the stored code of a
submodule, after one ``stat`` shows its source unchanged (same modification time in
nanoseconds and size) and the directory it came from is where its parent package looks.
Anything else (a top-level module, a changed or moved source, a module another finder
serves) is imported as usual and its code stored by the next :func:`save`.

A module from the file is the module the import system would have made: the same source
file (``__file__``, ``__spec__.origin``, ``__cached__``, a package's ``__path__``), code
compiled from that exact source by this interpreter at this optimisation level, and a loader
that is a :class:`~importlib.machinery.SourceFileLoader` for that file (its source,
resources). The file lives where :mod:`cli.regex_cache` keeps its programs (beside the
package's bytecode, else ``cache/`` of the state dir, 0600), is named by this interpreter's
cache tag, bytecode magic and optimisation level, written atomically, and bounded
(:data:`MAX_ENTRIES` modules). A missing, damaged or foreign file means importing as
usual: the file can only save time, never change what runs. Tests:
``tests/unit/test_module_cache.py``; cost: ``bench/capture_syncs.py``, docs/hooks.md
("Cost").
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (docs/hooks.md, "Cost")
if TYPE_CHECKING:
    from typing import Any

try:  # the import system's own classes, loaded in every interpreter (importlib.machinery re-exports them)
    import _frozen_importlib_external as _external
except ImportError:  # pragma: no cover - another Python implementation
    _external = None  # type: ignore[assignment]

# A hook imports at most ~90 modules of its own and of the standard library; a bound keeps
# a file that modules of other programs could reach from growing for good.
MAX_ENTRIES = 320

# The file: ``_MAGIC``, the index's length (4 bytes, little-endian), the index (marshal: name ->
# (source path, its st_mtime_ns, its size, whether a package, offset, length)), then each
# module's marshalled code at its offset after the index. A hook reads the index and then only
# the code of the modules it imports (``os.pread``), not the code of every hook path.
_MAGIC = b"MMC1"
_stored: dict[str, tuple[str, int, int, bool, int, int]] = {}
_file: list[Any] = []  # [descriptor, where the code begins] of the file preload() read
# Code of the modules this process imported from their files, by name: (path, mtime, size, package, code)
_recorded: dict[str, tuple[str, int, int, bool, Any]] = {}
_stale: set[str] = set()  # stored entries whose source changed or whose code could not be read
_finder: Any = None


def cache_path(directory: str) -> str | None:
    """This interpreter's file in ``directory``, or ``None`` where the import system is not
    the one this module knows (no cache then)."""
    tag = sys.implementation.cache_tag
    magic = getattr(_external, "MAGIC_NUMBER", None)
    if tag is None or _external is None or not isinstance(magic, bytes):
        return None
    return os.path.join(directory, f"modules.{tag}.{magic.hex()}.opt{sys.flags.optimize}.marshal")


def _directory() -> str | None:
    from cli import regex_cache

    return regex_cache.cache_directory()


def preload(directory: str | None = None) -> int:
    """Put the finder first in :data:`sys.meta_path`, offering the code stored in
    ``directory`` (by default where :mod:`cli.regex_cache` keeps its file); returns how many
    modules the file holds (0 on any problem, the finder then only records for :func:`save`)."""
    global _finder
    if _external is None:
        return 0
    if _finder is None:
        _finder = _StoredModules()
        sys.meta_path.insert(0, _finder)
    try:
        directory = directory or _directory()
        path = None if directory is None else cache_path(directory)
        if path is None:
            return 0
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
        try:
            index, base = _read_index(fd)
        except Exception:
            os.close(fd)
            raise
        _forget_file()
        _file[:] = [fd, base]
        _stored.update(index)
        return len(index)
    except Exception:
        return 0


def _read_index(fd: int) -> tuple[dict[str, tuple[str, int, int, bool, int, int]], int]:
    """The index of the open file ``fd`` and where its code begins; ``ValueError`` when it is
    not such a file."""
    import marshal

    head = os.read(fd, 65536)
    if head[:4] != _MAGIC or len(head) < 8:
        raise ValueError("not a module cache")
    base = 8 + int.from_bytes(head[4:8], "little")
    if base > len(head):
        head += os.pread(fd, base - len(head), len(head))
    index = marshal.loads(head[8:base])
    if not isinstance(index, dict) or len(head) < base:
        raise ValueError("damaged module cache")
    return index, base


def _forget_file() -> None:
    if _file:
        try:
            os.close(_file[0])
        except OSError:
            pass
    _file.clear()
    _stored.clear()


def _stored_code(name: str, offset: int, length: int) -> Any:
    """The code object stored for ``name``, or ``None`` when it cannot be read back."""
    import marshal

    try:
        fd, base = _file
        data = os.pread(fd, length, base + offset)
        if len(data) != length:
            return None
        return marshal.loads(data)
    except Exception:
        return None


def _package_parent(origin: str, package: bool) -> str:
    """The directory a module at ``origin`` is found in: its own for a module, its package
    directory's parent for a package's ``__init__``."""
    directory = os.path.dirname(origin)
    return os.path.dirname(directory) if package else directory


class _StoredModules:
    """The finder :func:`preload` puts first: stored code for an unchanged submodule, else
    the usual path search with the code recorded."""

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        if path is None:  # a top-level module: its place depends on sys.path and other finders
            return None
        try:
            entry = _stored.get(name)
            if entry is not None:
                spec = self._stored_spec(name, path, entry)
                if spec is not None:
                    return spec
            spec = _external.PathFinder.find_spec(name, path, target)
            if spec is not None and type(spec.loader) is _external.SourceFileLoader and spec.origin:
                spec.loader = _RecordingLoader(name, spec.origin)
            return spec
        except Exception:
            return None  # the next finder tries as usual

    @staticmethod
    def _stored_spec(name: str, path: Any, entry: tuple[str, int, int, bool, int, int]) -> Any:
        origin, mtime_ns, size, package, offset, length = entry
        if _package_parent(origin, package) not in list(path):
            return None
        try:
            status = os.stat(origin)
        except OSError:
            _stale.add(name)
            return None
        if status.st_mtime_ns != mtime_ns or status.st_size != size:
            _stale.add(name)
            return None
        code = _stored_code(name, offset, length)
        if code is None:
            _stale.add(name)
            return None
        loader = _StoredLoader(name, origin)
        loader.stored_code = code
        locations = [os.path.dirname(origin)] if package else None
        return _external.spec_from_file_location(name, origin, loader=loader, submodule_search_locations=locations)


if _external is not None:

    class _StoredLoader(_external.SourceFileLoader):  # type: ignore[misc,name-defined]
        """A source file's loader whose code comes from the stored file."""

        stored_code: Any = None

        def get_code(self, fullname: str) -> Any:
            code, self.stored_code = self.stored_code, None
            return code if code is not None else super().get_code(fullname)

    class _RecordingLoader(_external.SourceFileLoader):  # type: ignore[misc,name-defined]
        """The usual loader of a source file, keeping the code it gives for :func:`save`."""

        def get_code(self, fullname: str) -> Any:
            status = os.stat(self.path)  # before reading: a change meanwhile only makes it stale
            code = super().get_code(fullname)
            if code is not None and len(_recorded) < MAX_ENTRIES:
                package = os.path.basename(self.path).startswith("__init__.")
                _recorded[fullname] = (self.path, status.st_mtime_ns, status.st_size, package, code)
            return code


def save(directory: str | None = None) -> int:
    """Store the code of the modules this process imported from their files, dropping stored
    entries found stale; returns how many modules were added or replaced (0 when nothing
    changed or nothing may be written)."""
    new = {
        name: entry
        for name, entry in _recorded.items()
        if name not in _stored or _stored[name][:4] != entry[:4] or name in _stale
    }
    if not new and not _stale:
        return 0
    try:
        directory = directory or _directory()
        path = None if directory is None else cache_path(directory)
        if directory is None or path is None:
            return 0
        os.makedirs(directory, mode=0o700, exist_ok=True)
        import marshal

        blobs = _current_blobs(path)
        for name in _stale:
            blobs.pop(name, None)
        added = 0
        for name, (origin, mtime_ns, size, package, code) in new.items():
            if name not in blobs and len(blobs) >= MAX_ENTRIES:
                continue
            blobs[name] = ((origin, mtime_ns, size, package), marshal.dumps(code))
            added += 1
        index: dict[str, tuple[str, int, int, bool, int, int]] = {}
        offset = 0
        for name, (described, blob) in blobs.items():
            index[name] = (*described, offset, len(blob))
            offset += len(blob)
        packed = marshal.dumps(index)
        temporary = f"{path}.{os.getpid()}.tmp"
        try:
            # Private whatever the umask, like every file in the state dir.
            fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_CLOEXEC", 0), 0o600)
            with os.fdopen(fd, "wb") as handle:
                os.fchmod(handle.fileno(), 0o600)
                handle.write(_MAGIC + len(packed).to_bytes(4, "little") + packed)
                for _, blob in blobs.values():
                    handle.write(blob)
            os.replace(temporary, path)
        finally:
            if os.path.exists(temporary):
                os.unlink(temporary)
        _recorded.clear()
        _stale.clear()
        return added
    except Exception:
        return 0


def _current_blobs(path: str) -> dict[str, tuple[tuple[str, int, int, bool], bytes]]:
    """What the file at ``path`` holds now (another process may have replaced it since
    :func:`preload`), by name: (source path, mtime, size, package) and the code's bytes;
    empty for a missing or damaged file."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return {}
    try:
        index, base = _read_index(fd)
        blobs = {}
        for name, (origin, mtime_ns, size, package, offset, length) in index.items():
            blob = os.pread(fd, length, base + offset)
            if len(blob) == length:
                blobs[name] = ((origin, mtime_ns, size, package), blob)
        return blobs
    except Exception:
        return {}
    finally:
        os.close(fd)
