"""The vocabulary of work: its categories, and what one operation's input says it did.

:class:`Reading` is what one operation's input says it did: a category from
:data:`IMPORTANCE` (``inspect`` is not work), whether it was memevo's own, and the
directories it named. Which shell programs fall into which category is in
:mod:`memory_core.capture.work.shell_programs`.
"""

from __future__ import annotations

# Categories, and how much each matters when only a few observations can be kept:
# commits, pushes and merges (and publishing) first, then test/build/process results,
# then installs, then file changes, routine inspection last.
IMPORTANCE: dict[str, int] = {
    "push": 5,
    "merge": 5,
    "commit": 5,
    "test": 4,
    "build": 4,
    "run": 4,
    "install": 3,
    "write": 2,
    "git": 2,
    "inspect": 1,
}
INSPECT = "inspect"


# Record classes are tuples written out, not ``typing.NamedTuple`` (which compiles code for each
# class on every hook start and needs ``typing``; docs/hooks.md, "Cost").
class Reading(tuple[str, bool, tuple[tuple[str, str], ...], str]):
    """What one operation's input says it did."""

    __slots__ = ()

    def __new__(
        cls,
        category: str,
        own: bool = False,
        directories: tuple[tuple[str, str], ...] = (),
        label: str = "",
    ) -> Reading:
        return tuple.__new__(cls, (category, own, directories, label))

    def __getnewargs__(self) -> tuple[object, ...]:
        return tuple(self)

    @property
    def category(self) -> str:
        return self[0]

    @property
    def own(self) -> bool:  # memevo's own command or tool
        return self[1]

    @property
    def directories(self) -> tuple[tuple[str, str], ...]:
        """(how, path): ("cd", "/x"), ("git -C", "/y"), ("file", "/z/a")."""
        return self[2]

    @property
    def label(self) -> str:
        return self[3]

    @property
    def importance(self) -> int:
        return IMPORTANCE[self.category]

    @property
    def is_work(self) -> bool:
        return self.category != INSPECT
