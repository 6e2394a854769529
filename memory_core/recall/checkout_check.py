"""Claims the checkout has outgrown: what a claim names (:mod:`.named_things`) looked up in
the current checkout of its project.

A path is looked for relative to the checkout's root (and to the working directory inside
it); an absolute path only when it lies inside the checkout. A package script in the
``package.json`` of the root or the working directory, a poethepoet task or a pyproject
script in ``pyproject.toml``, a make target in the ``Makefile``, a branch among the
checkout's local and remote-tracking refs. Each answer is ``True`` (there), ``False`` (gone)
or ``None`` (cannot tell: no such file to look in, a ``Makefile`` with includes or pattern
rules, an unreadable file, a path outside the checkout): only ``False`` makes a claim stale.

Cheap: a few ``stat`` calls and at most one small read per file (64 KiB), every answer kept
for the rest of the process (:data:`_answers`, keyed by the checkout root). Never raises.
Standard library only: the hooks run it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from pathlib import Path

from memory_core.lazy_pattern import lazy
from memory_core.project import find_checkout
from memory_core.recall.named_things import BRANCH, PATH, SCRIPT, TARGET, Named, named_things
from memory_core.store.engines.dbapi import DbConn

MAX_READ = 64 * 1024
_answers: dict[tuple[str, str, str, str, str], bool | None] = {}
_files: dict[str, str | None] = {}
_MAKE_RULE = lazy(r"(?m)^([^\s:#=][^:=#]*?)\s*::?(?!=)")
_MAKE_UNSURE = lazy(r"(?m)^\s*-?include\b|^[^#\n]*%[^\n]*:")


def _read(path: str) -> str | None:
    if path in _files:
        return _files[path]
    text: str | None
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_READ + 1)
        text = None if len(data) > MAX_READ else data.decode("utf-8")
    except (OSError, UnicodeDecodeError):
        text = None
    _files[path] = text
    return text


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


class CheckoutView:
    """The checkout of a working directory: its root, the working directory, its git dir."""

    __slots__ = ("root", "cwd", "common_dir")

    def __init__(self, root: str, cwd: str, common_dir: str | None) -> None:
        self.root = root
        self.cwd = cwd
        self.common_dir = common_dir

    @classmethod
    def of(cls, directory: str) -> CheckoutView | None:
        """The view of the checkout enclosing ``directory``, or ``None`` (no checkout, unreadable)."""
        try:
            real = os.path.realpath(os.path.expanduser(directory))
            checkout = find_checkout(real)
        except (OSError, ValueError):
            return None
        if checkout is None:
            return None
        common = os.path.join(checkout.main_root, ".git")
        return cls(checkout.root, real, common if os.path.isdir(common) else None)

    def has(self, named: Named) -> bool | None:
        """Whether the checkout has what ``named`` names (``None``: cannot tell)."""
        key = (self.root, self.cwd, named.kind, named.name, named.tool)
        if key not in _answers:
            try:
                _answers[key] = self._look(named)
            except (OSError, ValueError):
                _answers[key] = None
        return _answers[key]

    def _look(self, named: Named) -> bool | None:
        if named.kind == PATH:
            return self._path(named.name)
        if named.kind == SCRIPT:
            return self._script(named)
        if named.kind == TARGET:
            return self._target(named.name)
        if named.kind == BRANCH:
            return self._branch(named.name)
        return None

    def _path(self, name: str) -> bool | None:
        text = name.rstrip("/") or "/"
        if text.startswith("~"):
            text = os.path.expanduser(text)
        if os.path.isabs(text):
            full = os.path.normpath(text)
            if not _inside(full, self.root):
                return None
            return os.path.lexists(full)
        bases = [self.root] if self.cwd == self.root or not _inside(self.cwd, self.root) else [self.root, self.cwd]
        usable = False
        for base in bases:
            full = os.path.normpath(os.path.join(base, text))
            if not _inside(full, self.root):
                continue
            usable = True
            if os.path.lexists(full):
                return True
        return False if usable else None

    def _manifests(self, name: str) -> list[str]:
        places = [self.root] if self.cwd == self.root or not _inside(self.cwd, self.root) else [self.cwd, self.root]
        return [text for place in places if (text := _read(os.path.join(place, name))) is not None]

    def _script(self, named: Named) -> bool | None:
        if named.tool == "npm":
            tables = []
            for text in self._manifests("package.json"):
                try:
                    scripts = json.loads(text).get("scripts")
                except (ValueError, AttributeError):
                    return None
                tables.append(scripts if isinstance(scripts, dict) else {})
            return any(named.name in t for t in tables) if tables else None
        texts = self._manifests("pyproject.toml")
        if not texts:
            return None
        import tomllib  # only when a claim names a pyproject script

        names: set[str] = set()
        for text in texts:
            try:
                data = tomllib.loads(text)
            except ValueError:
                return None
            tool = data.get("tool", {})
            if named.tool == "poe":
                tasks = tool.get("poe", {}).get("tasks")
                if not isinstance(tasks, dict):
                    return None
                names.update(tasks)
                continue
            names.update(data.get("project", {}).get("scripts", {}) or {})
            names.update(tool.get("poetry", {}).get("scripts", {}) or {})
            names.update(tool.get("pdm", {}).get("scripts", {}) or {})
            for env in (tool.get("hatch", {}).get("envs", {}) or {}).values():
                if isinstance(env, dict):
                    names.update(env.get("scripts", {}) or {})
        if named.name in names:
            return True
        if named.tool == "poe":
            return False
        # `uv run NAME` and the like also run any program, which may live in a virtual
        # environment or on a PATH this process does not see: a name missing from the tables
        # cannot be told gone.
        return None

    def _target(self, name: str) -> bool | None:
        for file_name in ("GNUmakefile", "makefile", "Makefile"):
            for text in self._manifests(file_name):
                if _MAKE_UNSURE.search(text):
                    return None
                targets = {t for m in _MAKE_RULE.compiled.finditer(text) for t in m.group(1).split()}
                return name in targets
        return None

    def _branch(self, name: str) -> bool | None:
        if self.common_dir is None or ".." in name:
            return None
        refs = os.path.join(self.common_dir, "refs")
        if os.path.isfile(os.path.join(refs, "heads", name)):
            return True
        remotes = os.path.join(refs, "remotes")
        try:
            for remote in os.listdir(remotes)[:16]:
                if os.path.isfile(os.path.join(remotes, remote, name)):
                    return True
        except OSError:
            pass
        packed = _read(os.path.join(self.common_dir, "packed-refs")) or ""
        for line in packed.splitlines():
            if line.endswith(f" refs/heads/{name}") or (" refs/remotes/" in line and line.endswith(f"/{name}")):
                return True
        return False


def missing_names(view: CheckoutView, content: str) -> list[str]:
    """What ``content`` names that the checkout no longer has, as a person reads each."""
    return [named.describe() for named in named_things(content) if view.has(named) is False]


def stale_check_for(cwd: str, group: Sequence[str]) -> Callable[[str, str], list[str]] | None:
    """A check of claims of the origins ``group`` against the checkout of ``cwd``: for a claim
    ``(origin, content)`` what it names that is gone (empty: not stale). ``None`` without a
    checkout (nothing can be checked)."""
    view = CheckoutView.of(cwd) if cwd else None
    if view is None:
        return None
    origins = frozenset(group)

    def check(origin: str, content: str) -> list[str]:
        if origin not in origins:
            return []
        return missing_names(view, content)

    return check


def forget_answers() -> None:
    """Drop every kept answer (a long-lived process that must look again: the web page, tests)."""
    _answers.clear()
    _files.clear()


def project_group(conn: DbConn, cwd: str, home: Path | None) -> tuple[str, tuple[str, ...]]:
    """The project of ``cwd`` (as capture names it) and every origin of its group."""
    from memory_core.project import resolve_project
    from memory_core.store.tables.origin_aliases import project_origins

    project = resolve_project(cwd, home).origin
    group = project_origins(conn, project)
    if project not in group:
        group = (project, *group)
    return project, group


def checkout_check_for(conn: DbConn, cwd: str, home: Path | None) -> Callable[[str, str], list[str]] | None:
    """The checkout check of ``cwd``'s project for per-turn recall (``None``: no checkout)."""
    if not cwd:
        return None
    try:
        _project, group = project_group(conn, cwd, home)
    except (OSError, ValueError):
        return None
    return stale_check_for(cwd, group)
