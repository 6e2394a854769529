"""The hook path's module code kept in one file between hook processes.

A hook process imports 60-85 modules of its own and of the standard library. Reading each
one's bytecode costs the import system's path search, a ``stat`` of the source, opening and
reading the ``.pyc`` and checking its header: about 45 µs a module before any of its code
runs, 3-4 ms of every hook. :func:`save` keeps the code of the modules this process imported
from source files in one file; :func:`preload` (run before the hook imports anything) puts a
finder first in :data:`sys.meta_path` that hands the import system the stored code of a
submodule, after a ``stat`` shows its source unchanged (the same file, by device and inode,
with the same size and modification and change times in nanoseconds: a copy that keeps the
modification time still changes the change time) and the directory it came from is the
first place its parent package looks and unchanged since (nothing added there, such as a
package or an extension of the same name, that a path search would now find first).
Anything else (a top-level module, a changed or moved source, a module another finder
serves) is imported as usual and its code stored by the next :func:`save`.

A module from the file is the module the import system would have made: the same source
file (``__file__``, ``__spec__.origin``, ``__cached__``, a package's ``__path__``), code
compiled from that exact source by this interpreter at this optimisation level, and a loader
that is a :class:`~importlib.machinery.SourceFileLoader` for that file (its source,
resources). The file lives where :mod:`cli.regex_cache` keeps its programs (beside the
package's bytecode, else ``cache/`` of the state dir, 0600), is named by this interpreter's
cache tag, bytecode magic and optimisation level (in the state dir also by the installation:
:func:`installation_key`), written atomically, and bounded
(:data:`MAX_ENTRIES` modules). A missing, damaged or foreign file means importing as
usual: the file can only save time, never change what runs. Tests:
``tests/unit/test_module_cache.py``; cost: ``bench/capture_syncs.py``, docs/hooks.md
("Cost").
"""

from __future__ import annotations

import _imp
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
# (source path, its signature (:func:`_signature`), whether a package, offset, length)), then
# each module's marshalled code at its offset after the index. A hook reads the index and then
# only the code of the modules it imports (``os.pread``), not the code of every hook path.
_MAGIC = b"MMC2"
_stored: dict[str, tuple[str, tuple[int, ...], bool, int, int]] = {}
_file: list[Any] = []  # [descriptor, where the code begins] of the file preload() read
# Code of the modules this process imported from their files, by name: (path, signature, package, code)
_recorded: dict[str, tuple[str, tuple[int, ...], bool, Any]] = {}
_directories: dict[str, int] = {}  # modification times of the directories looked at, this process
_stale: set[str] = set()  # stored entries whose source changed or whose code could not be read
_finder: Any = None


# The package's own bytecode directory: a file there belongs to this installation alone.
_PACKAGE_CACHE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "__pycache__")
# The directory holding memevo's packages (a checkout, or site-packages).
_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Another installation's file in the state dir's cache/ left unwritten this long is dropped
# when this one writes its own (a checkout since deleted, a copy no longer used).
ABANDONED_SECONDS = 30 * 86_400


def _prefix() -> str | None:
    """The file name's start for this interpreter: cache tag, bytecode magic and optimisation
    level (``None`` where the import system is not the one this module knows)."""
    tag = sys.implementation.cache_tag
    magic = getattr(_external, "MAGIC_NUMBER", None)
    if tag is None or _external is None or not isinstance(magic, bytes):
        return None
    return f"modules.{tag}.{magic.hex()}.opt{sys.flags.optimize}"


def installation_key(root: str | None = None) -> str:
    """A stable name of the installation at ``root`` (this one by default): FNV-1a (64 bits)
    of its resolved path, the same in every process (Python's own ``hash`` of a string is not)."""
    value = 0xCBF29CE484222325
    for byte in os.fsencode(os.path.realpath(root or _ROOT)):
        value = ((value ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return f"{value:016x}"


def _shared(directory: str) -> bool:
    """Whether ``directory`` is one every installation may use (the state dir's ``cache/``),
    not this installation's own bytecode directory."""
    return os.path.abspath(directory) != _PACKAGE_CACHE


def cache_path(directory: str) -> str | None:
    """This interpreter's file in ``directory``, or ``None`` where the import system is not
    the one this module knows (no cache then). In the state dir's ``cache/``, which every
    installation using that state dir shares (two checkouts, a checkout and an installed
    copy), the name also holds :func:`installation_key`, so each keeps its own file instead of
    rewriting a shared one in turn."""
    prefix = _prefix()
    if prefix is None:
        return None
    if _shared(directory):
        prefix += "." + installation_key()
    return os.path.join(directory, prefix + ".marshal")


def _drop_abandoned(directory: str, kept: str, now: float) -> None:
    """In the state dir's ``cache/``: remove the file this interpreter named before files were
    named by installation, and other installations' files unwritten for
    :data:`ABANDONED_SECONDS` (their next hook, if any, writes its file again)."""
    prefix = _prefix()
    if prefix is None or not _shared(directory):
        return
    for name in os.listdir(directory):
        path = os.path.join(directory, name)
        if not name.startswith("modules.") or not name.endswith(".marshal") or path == kept:
            continue
        try:
            if name == prefix + ".marshal" or now - os.stat(path).st_mtime > ABANDONED_SECONDS:
                os.unlink(path)
        except OSError:
            continue


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
        # First, so a stored module costs no other finder's search; frozen modules stay
        # frozen (find_spec leaves them to their importer).
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


def _read_index(fd: int) -> tuple[dict[str, tuple[str, tuple[int, ...], bool, int, int]], int]:
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


def _stored_code(origin: str, offset: int, length: int) -> Any:
    """The code object stored for the module at ``origin``, or ``None`` when it cannot be read
    back or is not that file's module code."""
    import marshal

    try:
        fd, base = _file
        data = os.pread(fd, length, base + offset)
        if len(data) != length:
            return None
        code = marshal.loads(data)
    except Exception:
        return None
    return code if type(code) is _CODE and code.co_filename == origin else None


_CODE = type(_stored_code.__code__)


def _package_parent(origin: str, package: bool) -> str:
    """The directory a module at ``origin`` is found in: its own for a module, its package
    directory's parent for a package's ``__init__``."""
    directory = os.path.dirname(origin)
    return os.path.dirname(directory) if package else directory


def _signature(origin: str, package: bool) -> tuple[int, ...]:
    """What must not change for the code stored for ``origin`` to stand: the source file's
    device, inode, size, modification and change times, and the modification time of the
    directory it is found in (``OSError`` when either is gone)."""
    status = os.stat(origin)
    directory = _package_parent(origin, package)
    changed = _directories.get(directory)
    if changed is None:
        changed = _directories[directory] = os.stat(directory).st_mtime_ns
    return (status.st_dev, status.st_ino, status.st_size, status.st_mtime_ns, status.st_ctime_ns, changed)


class _StoredModules:
    """The finder :func:`preload` puts first: stored code for an unchanged submodule, else
    the usual path search with the code recorded."""

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        if path is None:  # a top-level module: its place depends on sys.path and other finders
            return None
        if _imp.is_frozen(name):  # built into the interpreter (importlib.util …): its own importer's
            return None
        entry = _stored.get(name)
        if entry is not None:
            try:
                spec = self._stored_spec(name, path, entry)
            except Exception:  # an entry of another shape: imported as usual, stored anew
                spec = None
                _stale.add(name)
            if spec is not None:
                return spec
        try:
            spec = _external.PathFinder.find_spec(name, path, target)
            if spec is not None and type(spec.loader) is _external.SourceFileLoader and spec.origin:
                spec.loader = _RecordingLoader(name, spec.origin)
            return spec
        except Exception:
            return None  # the next finder tries as usual

    @staticmethod
    def _stored_spec(name: str, path: Any, entry: tuple[str, tuple[int, ...], bool, int, int]) -> Any:
        origin, signature, package, offset, length = entry
        places = list(path)
        if not places or places[0] != _package_parent(origin, package):  # found first there
            return None
        try:
            unchanged = _signature(origin, package) == tuple(signature)
        except OSError:
            unchanged = False
        if not unchanged:
            _stale.add(name)
            return None
        code = _stored_code(origin, offset, length)
        if code is None:
            _stale.add(name)
            return None
        loader = _StoredLoader(name, origin)
        loader.stored_code = code
        locations = [os.path.dirname(origin)] if package else None
        spec: Any = _external.spec_from_file_location(name, origin, loader=loader, submodule_search_locations=locations)
        # As the import system leaves it once loaded: until then, a module attribute the import
        # system looks for and misses (``__path__`` of a plain module) asks the spec for it,
        # and a missing one costs an AttributeError's message (docs/hooks.md, "Cost").
        if spec is not None:
            spec._initializing = False
        return spec


if _external is not None:

    class _StoredLoader(_external.SourceFileLoader):  # type: ignore[misc,name-defined]
        """A source file's loader whose code comes from the stored file."""

        stored_code: Any = None

        def create_module(self, spec: Any) -> Any:
            """The module object with the attributes the import system then sets from ``spec``
            already set to those values (``__file__``, ``__cached__``, a package's
            ``__path__``): it looks each one up first, and on Python 3.11 every miss on a
            module formats two or three AttributeError messages no one reads."""
            module: Any = type(sys)(spec.name)
            module.__file__ = spec.origin
            if spec.cached is not None:
                module.__cached__ = spec.cached
            if spec.submodule_search_locations is not None:
                module.__path__ = spec.submodule_search_locations
            return module

        def get_code(self, fullname: str) -> Any:
            code, self.stored_code = self.stored_code, None
            return code if code is not None else super().get_code(fullname)

    class _RecordingLoader(_external.SourceFileLoader):  # type: ignore[misc,name-defined]
        """The usual loader of a source file, keeping the code it gives for :func:`save`."""

        def get_code(self, fullname: str) -> Any:
            package = os.path.basename(self.path).startswith("__init__.")
            signature = _signature(self.path, package)  # before reading: a change meanwhile only makes it stale
            code = super().get_code(fullname)
            if type(code) is _CODE and len(_recorded) < MAX_ENTRIES:
                _recorded[fullname] = (self.path, signature, package, code)
            return code


def save(directory: str | None = None) -> int:
    """Store the code of the modules this process imported from their files, dropping entries
    whose source changed or is gone; returns how many modules were added or replaced (0 when
    nothing changed or nothing may be written)."""
    try:
        new = {
            name: entry
            for name, entry in _recorded.items()
            if name in _stale or name not in _stored or tuple(_stored[name][:3]) != entry[:3]
        }
        if not new and not _stale:
            return 0
        directory = directory or _directory()
        path = None if directory is None else cache_path(directory)
        if directory is None or path is None:
            return 0
        os.makedirs(directory, mode=0o700, exist_ok=True)
        import marshal

        blobs = {name: kept for name, kept in _current_blobs(path).items() if name not in _stale and _holds(kept[0])}
        added = 0
        for name, (origin, signature, package, code) in new.items():
            if name not in blobs and len(blobs) >= MAX_ENTRIES:
                continue
            blobs[name] = ((origin, signature, package), marshal.dumps(code))
            added += 1
        index: dict[str, tuple[str, tuple[int, ...], bool, int, int]] = {}
        offset = 0
        for name, (described, blob) in blobs.items():
            index[name] = (*described, offset, len(blob))
            offset += len(blob)
        packed = marshal.dumps(index)
        from memory_core.files.private_file import replace_privately

        head = _MAGIC + len(packed).to_bytes(4, "little") + packed
        replace_privately(path, [head, *(blob for _, blob in blobs.values())])
        import time

        _drop_abandoned(directory, path, time.time())
        _recorded.clear()
        _stale.clear()
        return added
    except Exception:
        return 0


def _holds(described: tuple[str, tuple[int, ...], bool]) -> bool:
    """Whether a kept entry still describes its source (a renamed or deleted module, or one
    changed since, is dropped instead of filling the file for good)."""
    origin, signature, package = described
    try:
        return _signature(origin, package) == tuple(signature)
    except (OSError, TypeError, ValueError):
        return False


def _current_blobs(path: str) -> dict[str, tuple[tuple[str, tuple[int, ...], bool], bytes]]:
    """What the file at ``path`` holds now (another process may have replaced it since
    :func:`preload`), by name: (source path, signature, package) and the code's bytes; empty
    for a missing or damaged file."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return {}
    try:
        index, base = _read_index(fd)
        blobs = {}
        for name, (origin, signature, package, offset, length) in index.items():
            blob = os.pread(fd, length, base + offset)
            if len(blob) == length:
                blobs[name] = ((origin, tuple(signature), package), blob)
        return blobs
    except Exception:
        return {}
    finally:
        os.close(fd)
