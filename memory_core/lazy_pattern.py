"""Regular expressions compiled on their first use, for modules with many rarely needed patterns."""

from __future__ import annotations

import re
from collections.abc import Callable


class LazyPattern:
    """A regular expression compiled on its first use.

    Compiling every secret pattern of :mod:`memory_core.privacy.redaction` costs a process about
    8 ms, and most processes that import it use a few of them, so each pattern is compiled
    once, when it is first needed."""

    __slots__ = ("_source", "_flags", "_compiled")

    def __init__(self, source: str, flags: int = 0) -> None:
        self._source = source
        self._flags = flags
        self._compiled: re.Pattern[str] | None = None

    @property
    def compiled(self) -> re.Pattern[str]:
        if self._compiled is None:
            self._compiled = re.compile(self._source, self._flags)
        return self._compiled

    def sub(self, repl: str | Callable[[re.Match[str]], str], string: str) -> str:
        return self.compiled.sub(repl, string)

    def search(self, string: str) -> re.Match[str] | None:
        return self.compiled.search(string)

    def match(self, string: str) -> re.Match[str] | None:
        return self.compiled.match(string)

    def fullmatch(self, string: str) -> re.Match[str] | None:
        return self.compiled.fullmatch(string)


def lazy(source: str, flags: int = 0) -> LazyPattern:
    return LazyPattern(source, flags)
