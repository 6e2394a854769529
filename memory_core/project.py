"""A capture's project: the repository it was captured in, not the path of the directory.

The same repository checked out at ``/home/alice/work/shop`` and ``/Users/bob/code/shop``,
a worktree of it, or any subdirectory of either, is one project. In order:

1. an explicit name: ``MEMEVO_PROJECT``, or the ``project`` setting of ``config.toml``
   (one name, or a table of ``"PATH" = "NAME"``, the longest enclosing path winning);
2. the normalized remote of the enclosing checkout (``[remote "origin"]``, else the first
   remote in its ``config``), e.g. ``github.com/acme/shop`` for
   ``git@github.com:acme/shop.git``, ``https://github.com/acme/shop`` and
   ``ssh://git@github.com:22/acme/shop/``;
3. a checkout without a (usable) remote: the real path of its main worktree's root;
4. outside a checkout, or when the checkout cannot be read: the real path of the directory.

The checkout is read from ``.git`` (a directory, or a file ``gitdir: …`` for worktrees and
submodules, with the worktree's ``commondir``) without starting ``git``: a few ``stat`` calls
while walking up, then at most three small reads. Nothing is cached between calls. Bad input
never fails a capture: a malformed remote, a ``.git`` file pointing nowhere or an unreadable
config gives the directory's path. Standard library only: the turn-end hook runs it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from memory_core.lazy_pattern import lazy

ENV_VARIABLE = "MEMEVO_PROJECT"
SETTING = "project"
MAX_LEVELS = 64  # directories walked up looking for ``.git``
MAX_READ = 64 * 1024  # bytes read of a ``.git`` file, ``commondir`` or ``config``
MAX_NAME = 200
MAX_OVERRIDES = 200
# Hosts whose repository paths are case-insensitive: ``Acme/Shop`` and ``acme/shop`` are one.
CASELESS_HOSTS = frozenset({"github.com", "gitlab.com", "bitbucket.org", "codeberg.org"})

_HOST = lazy(r"^(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*$|^\[[0-9a-f:.]+\]$")
_PATH_PART = lazy(r"^[\w.~+-]+$")
_SECTION = lazy(r'^\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]\s*(.*)$')
_SCHEMES = frozenset({"ssh", "git", "http", "https", "git+ssh", "ssh+git", "ftp", "ftps"})


# Record classes are tuples written out, not ``typing.NamedTuple`` (which compiles code for each
# class on every hook start and needs ``typing``; docs/hooks.md, "Cost").
class Project(tuple[str, tuple[str, ...]]):
    """A capture's project, and the directories whose path origins (the origins captures had
    before projects were repositories) belong to it: the directory, its parents up to the
    checkout's root and the main worktree's root (the directory alone outside a checkout)."""

    __slots__ = ()

    def __new__(cls, origin: str, roots: tuple[str, ...]) -> Project:
        return tuple.__new__(cls, (origin, roots))

    def __getnewargs__(self) -> tuple[object, ...]:
        return tuple(self)

    @property
    def origin(self) -> str:
        return self[0]

    @property
    def roots(self) -> tuple[str, ...]:
        return self[1]


class Checkout(tuple[str, str, str | None]):
    """A checkout found from a directory: the root of its worktree, the main worktree's root
    (the same for a plain checkout) and the normalized remote, if it has a usable one."""

    __slots__ = ()

    def __new__(cls, root: str, main_root: str, remote: str | None) -> Checkout:
        return tuple.__new__(cls, (root, main_root, remote))

    def __getnewargs__(self) -> tuple[object, ...]:
        return tuple(self)

    @property
    def root(self) -> str:
        return self[0]

    @property
    def main_root(self) -> str:
        return self[1]

    @property
    def remote(self) -> str | None:
        return self[2]


def normalize_remote(url: str) -> str | None:
    """``host/path`` for a git remote URL (scp-like ``user@host:path`` or ``scheme://``), or
    ``None`` for a local path, a ``file://`` URL or anything malformed.

    The user, password, port, a trailing slash and ``.git`` are dropped; the host is lower
    case (and the path too on :data:`CASELESS_HOSTS`)."""
    text = url.strip()
    if not text or any(ch.isspace() or ord(ch) < 32 for ch in text):
        return None
    if "://" in text:
        scheme, _, rest = text.partition("://")
        if scheme.lower() not in _SCHEMES:
            return None
        authority, _, path = rest.partition("/")
    else:
        # git's rule: a colon before any slash makes it scp-like; otherwise it is a path.
        colon, slash = text.find(":"), text.find("/")
        if colon <= 0 or (0 <= slash < colon):
            return None
        authority, path = text[:colon], text[colon + 1 :]
        if len(authority) == 1:  # C:\repo or C:/repo, a Windows path
            return None
    host = authority.rpartition("@")[2].lower()
    if host.startswith("["):
        host = host[: host.find("]") + 1] if "]" in host else ""
    elif ":" in host:
        host, _, port = host.partition(":")
        if port and not port.isdigit():
            return None
    if not host or not _HOST.match(host):
        return None
    path = path.strip("/")
    if path.endswith(".git"):
        path = path[:-4].rstrip("/")
    parts = [p for p in path.split("/") if p]
    if not parts or any(p in (".", "..") or not _PATH_PART.match(p) for p in parts):
        return None
    joined = "/".join(parts)
    return f"{host}/{joined.lower() if host in CASELESS_HOSTS else joined}"


def _read_small(path: str) -> str | None:
    try:
        with open(path, "rb") as handle:
            return handle.read(MAX_READ).decode("utf-8", errors="replace")
    except OSError:
        return None


def _is_git_dir(path: str) -> bool:
    return os.path.isfile(os.path.join(path, "HEAD"))


def _git_dir(entry: str) -> str | None:
    """The git directory a ``.git`` entry names: itself, or where its ``gitdir:`` line points."""
    if os.path.isdir(entry):
        return entry if _is_git_dir(entry) else None
    text = _read_small(entry)
    if text is None or not text.startswith("gitdir:"):
        return None
    lines = text[len("gitdir:") :].strip().splitlines()
    target = lines[0].strip() if lines else ""
    if not target:
        return None
    resolved = os.path.realpath(os.path.join(os.path.dirname(entry), target))
    return resolved if _is_git_dir(resolved) else None


def _common_dir(git_dir: str) -> str | None:
    """The repository's shared directory (a worktree's ``commondir``), or ``None`` for none."""
    text = _read_small(os.path.join(git_dir, "commondir"))
    if text is None:
        return None
    line = text.strip().splitlines()[0].strip() if text.strip() else ""
    return os.path.realpath(os.path.join(git_dir, line)) if line else None


def _unquote(value: str) -> str:
    """A git config value: comments cut, quotes removed, escapes read."""
    out: list[str] = []
    quoted = False
    i = 0
    while i < len(value):
        ch = value[i]
        if ch == "\\" and i + 1 < len(value):
            out.append({"n": "\n", "t": "\t", "b": "\b"}.get(value[i + 1], value[i + 1]))
            i += 2
            continue
        if ch == '"':
            quoted = not quoted
        elif ch in "#;" and not quoted:
            break
        else:
            out.append(ch)
        i += 1
    return "".join(out).strip()


def remote_urls(config_text: str) -> dict[str, str]:
    """The first ``url`` of each ``[remote "NAME"]`` section, in the file's order."""
    urls: dict[str, str] = {}
    remote: str | None = None
    for raw in config_text.splitlines():
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("["):
            match = _SECTION.match(line)
            remote = None
            if match and match.group(1).lower() == "remote" and match.group(2) is not None:
                remote = match.group(2)
            line = match.group(3).strip() if match else ""
            if not line:
                continue
        if remote is None or "=" not in line:
            continue
        key, _, value = line.partition("=")
        if key.strip().lower() == "url" and remote not in urls:
            urls[remote] = _unquote(value)
    return urls


def _remote_of(common_dir: str) -> str | None:
    text = _read_small(os.path.join(common_dir, "config"))
    if text is None:
        return None
    urls = remote_urls(text)
    url = urls.get("origin") or next(iter(urls.values()), None)
    return normalize_remote(url) if url else None


def find_checkout(directory: str) -> Checkout | None:
    """The checkout enclosing ``directory`` (a real, absolute path), or ``None`` when there is
    none or the one found cannot be read (its ``.git`` points nowhere)."""
    current = directory
    for _ in range(MAX_LEVELS):
        entry = os.path.join(current, ".git")
        if os.path.lexists(entry):
            git_dir = _git_dir(entry)
            if git_dir is None:
                return None
            common = _common_dir(git_dir)
            if common is not None and _is_git_dir(common):
                # A linked worktree: the main worktree's root holds the common ``.git``.
                main_root = os.path.dirname(common) if os.path.basename(common) == ".git" else current
            else:
                common, main_root = git_dir, current
            return Checkout(current, main_root, _remote_of(common))
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent
    return None


def _valid_name(value: object) -> str | None:
    if not isinstance(value, str):
        return None
    name = value.strip()
    if not name or len(name) > MAX_NAME or any(ord(ch) < 32 or ord(ch) == 127 for ch in name):
        return None
    return name


def override_for(directory: str, value: object) -> str | None:
    """The project ``value`` (the ``project`` setting) names for ``directory``: one name for
    everywhere, or the name of the longest enclosing path of a table."""
    if not isinstance(value, dict):
        return _valid_name(value)
    best: tuple[int, str] | None = None
    for raw_path, name in list(value.items())[:MAX_OVERRIDES]:
        if not isinstance(raw_path, str) or not raw_path.strip() or _valid_name(name) is None:
            continue
        prefix = os.path.realpath(os.path.expanduser(raw_path.strip()))
        if directory == prefix or directory.startswith(prefix.rstrip("/") + "/"):
            if best is None or len(prefix) > best[0]:
                best = (len(prefix), str(_valid_name(name)))
    return best[1] if best else None


def configured_project(directory: str, home: Path, env: Mapping[str, str]) -> str | None:
    """The project named for ``directory`` by ``MEMEVO_PROJECT`` or ``config.toml``, read as
    the settings read them without loading them (the file is parsed only when it names the
    setting). A value the settings would refuse names nothing here; status reports it."""
    named = _valid_name(env.get(ENV_VARIABLE) or "")
    if named is not None:
        return named
    from memory_core.config_file import config_data

    try:
        data = config_data(home, SETTING)
    except (OSError, ValueError):  # unreadable, not UTF-8 or not TOML: the settings report it
        return None
    return override_for(directory, data.get(SETTING)) if data is not None and SETTING in data else None


def _legacy_paths(real: str, checkout: Checkout | None) -> tuple[str, ...]:
    """The directory, its parents up to the checkout's root, and the main worktree's root."""
    if checkout is None:
        return (real,)
    paths = [real]
    current = real
    while current != checkout.root and current != os.path.dirname(current):
        current = os.path.dirname(current)
        paths.append(current)
    paths.append(checkout.main_root)
    return tuple(dict.fromkeys(paths))


def resolve_project(directory: str, home: Path | None = None, env: Mapping[str, str] | None = None) -> Project:
    """The project of a capture in ``directory`` (see the module docstring), never failing.
    ``home`` (the state dir) is where ``config.toml`` may name projects."""
    real = os.path.realpath(os.path.expanduser(directory))
    try:
        checkout = find_checkout(real)
    except (OSError, ValueError):
        checkout = None
    roots = _legacy_paths(real, checkout)
    if home is not None:
        named = configured_project(real, home, os.environ if env is None else env)
        if named is not None:
            return Project(named, roots)
    if checkout is None:
        return Project(real, roots)
    return Project(checkout.remote or checkout.main_root, roots)
