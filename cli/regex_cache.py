"""Compiled regular expressions kept between hook processes, like bytecode.

A hook process compiles every regular expression of the modules it imports (the tokenizer,
the vocabulary, redaction): about 15 ms of pure Python work on each agent turn, always with
the same result. Compiling yields a small program for the C matcher; :func:`save` keeps the
programs of what this process compiled in a file, and :func:`preload` (run before anything
else is imported) seeds :mod:`re`'s own cache with them, so the modules' ``re.compile``
calls return at once. Loading takes well under a millisecond.

The file lives beside the package's bytecode when bytecode is written there; where it is
not (``PYTHONDONTWRITEBYTECODE``, which many container images set, or a package directory
this user cannot write), in ``cache/`` of the state dir, which every hook writes anyway
(:func:`cache_directory`; never where no state dir exists yet). It belongs to this
interpreter only (named by its cache tag and the matcher's ``MAGIC``), is written
atomically, and every program is checked by the matcher when loaded. Anything unexpected
(another Python, a damaged file, a changed ``re`` internals) means compiling as usual: the
cache can only save time, never change a result. Tests: ``tests/unit/test_regex_cache.py``,
``tests/unit/test_regex_cache_state_dir.py``; cost: ``bench/regex_cache.py``.
"""

from __future__ import annotations

import os
import re
import sys

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (docs/hooks.md, "Cost")
if TYPE_CHECKING:
    from typing import Any


_DIRECTORY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "__pycache__")
_loaded: set[tuple[str, int]] = set()
# Patterns built from data (a name searched for in a turn, say) are compiled too: without a
# cap each new value would add a program for good. The modules' own patterns come first.
MAX_ENTRIES = 384


def cache_directory() -> str | None:
    """Where this process keeps its programs: the package's ``__pycache__`` when bytecode is
    written and may be written there, else ``cache/`` in the state dir, else ``None`` (no
    state dir yet: nothing is created for a cache)."""
    if not sys.dont_write_bytecode and _writable(_DIRECTORY):
        return _DIRECTORY
    from memory_core.paths import state_home

    home = str(state_home())
    return os.path.join(home, "cache") if os.path.isdir(home) else None


def _writable(directory: str) -> bool:
    target = directory if os.path.isdir(directory) else os.path.dirname(directory)
    return os.access(target, os.W_OK)


def cache_path(directory: str = _DIRECTORY) -> str | None:
    """Where this interpreter's programs live, or ``None`` when its ``re`` is not the one this
    module knows (no cache then)."""
    try:
        import _sre

        tag = sys.implementation.cache_tag
        magic = _sre.MAGIC
    except (ImportError, AttributeError):
        return None
    if tag is None or not isinstance(getattr(re, "_cache", None), dict):
        return None
    return os.path.join(directory, f"regex.{tag}.{magic}.{_FORMAT}.marshal")


# Each program is kept as the bytes of its code words in this machine's order (``_FORMAT``
# names that layout in the file's name): unmarshalling one bytes object per program is a copy,
# where a list of Python ints (the layout before) took about 0.7 ms for the ~140 programs the
# hooks compile, on every hook start. Where a code word is not a C ``unsigned int`` the
# programs stay lists.
_FORMAT = f"w{sys.byteorder[0]}" if memoryview(bytes(4)).cast("I").itemsize == 4 else "l"


def _packed(code: list[int]) -> bytes | list[int]:
    import _sre

    if _FORMAT == "l" or _sre.CODESIZE != 4:
        return code
    return b"".join(word.to_bytes(4, sys.byteorder) for word in code)


def _unpacked(code: bytes | list[int]) -> list[int]:
    return memoryview(code).cast("I").tolist() if isinstance(code, bytes) else code


def preload(directory: str | None = None) -> int:
    """Offer :mod:`re` the programs stored in ``directory`` (by default
    :func:`cache_directory`); returns how many (0 on any problem).

    A program is turned into a pattern object only when a module first asks :mod:`re` for its
    pattern (:func:`_compile_stored`, put in place of ``re._compile``): the file holds what
    every hook compiles (a capture uses about a third of it), and making a pattern object of
    each at start cost a capture hook about 0.5 ms."""
    try:
        directory = directory or cache_directory()
        path = None if directory is None else cache_path(directory)
        if directory is None or path is None:
            return 0
        import marshal

        with open(path, "rb") as handle:
            entries = marshal.loads(handle.read())
        if not isinstance(entries, dict) or not isinstance(getattr(re, "_compile", None), type(preload)):
            return 0
        _stored.update(entries)
        _loaded.update(entries)
        if re._compile is not _compile_stored:  # type: ignore[attr-defined]
            global _compile_original
            _compile_original = re._compile  # type: ignore[attr-defined]
            re._compile = _compile_stored  # type: ignore[attr-defined]
        return len(entries)
    except Exception:
        return 0


# Programs read by preload() not yet asked for, and re's own compiler they stand in for.
_stored: dict[Any, Any] = {}
_compile_original: Any = None


def _compile_stored(pattern: Any, flags: Any) -> Any:
    """``re._compile`` while stored programs wait: a pattern whose program is stored is made
    from it (checked by the matcher, kept in :mod:`re`'s cache as compiling would), anything
    else compiled as usual. A stored program that does not give back its pattern is dropped."""
    entry = _stored.pop((pattern, flags), None) if type(pattern) is str and _stored else None
    if entry is not None:
        try:
            import _sre

            all_flags, code, groups, groupindex, indexgroup = entry
            compiled = _sre.compile(pattern, all_flags, _unpacked(code), groups, groupindex, indexgroup)
        except Exception:
            compiled = None
        if compiled is not None and compiled.pattern == pattern:
            cache: dict[Any, Any] = re._cache  # type: ignore[attr-defined]
            if len(cache) < getattr(re, "_MAXCACHE", 512) - 64:  # leave room for re's own
                cache[str, pattern, int(flags)] = compiled
            return compiled
    if _compile_original is None:  # a pattern pickled where preload() ran, unpickled elsewhere
        return re.compile(pattern, flags)
    return _compile_original(pattern, flags)


def save(directory: str | None = None) -> int:
    """Store the programs of what this process compiled that the file in ``directory`` (by
    default :func:`cache_directory`) did not hold yet; returns how many were added (0 when
    nothing is new or nothing may be written)."""
    try:
        directory = directory or cache_directory()
        path = None if directory is None else cache_path(directory)
        if directory is None or path is None:
            return 0
        cache: dict[Any, Any] = re._cache  # type: ignore[attr-defined]
        new = [
            (pattern, flags)
            for kind, pattern, flags in list(cache)
            if kind is str and isinstance(flags, int) and (pattern, flags) not in _loaded
        ]
        if not new:
            return 0
        # Where nothing may be written, nothing is worth working out.
        os.makedirs(directory, mode=0o700, exist_ok=True)
        import marshal
        from re import _compiler, _parser  # type: ignore[attr-defined]

        try:
            with open(path, "rb") as handle:
                entries = marshal.loads(handle.read())
        except (OSError, ValueError, EOFError, TypeError):
            entries = {}
        new = [key for key in new if key not in entries][: max(0, MAX_ENTRIES - len(entries))]
        if not new:
            return 0
        for pattern, flags in new:
            parsed = _parser.parse(pattern, flags)
            code = [int(c) for c in _compiler._code(parsed, flags)]
            groupindex = dict(parsed.state.groupdict)
            indexgroup: list[str | None] = [None] * parsed.state.groups
            for name, index in groupindex.items():
                indexgroup[index] = name
            entries[pattern, flags] = (
                int(flags | parsed.state.flags),
                _packed(code),
                parsed.state.groups - 1,
                groupindex,
                tuple(indexgroup),
            )
        from memory_core.files.private_file import replace_privately

        replace_privately(path, [marshal.dumps(entries)])
        return len(new)
    except Exception:
        return 0
