"""Where the memory lives: the store and queue URLs, read with the standard library only.

``MEMEVO_DATABASE_URL`` (environment, else ``database_url`` in ``config.toml``) names the
store: unset, blank or ``sqlite:///path`` keeps the embedded SQLite file (``memory.db`` in the
state dir unless a path is given); ``postgresql://…`` (or ``postgres://…``) puts it on a
PostgreSQL server. ``MEMEVO_QUEUE_URL`` (or ``queue_url``) names the queue: unset follows the
store (huey's SQLite queue beside ``memory.db``, or ``PostgresHuey`` in the same database);
``redis://…`` (or ``rediss://…``) puts the nudges on a Redis. A SQLite store with a remote
queue is refused: workers on other machines could not reach ``memory.db``.

Hooks call :func:`resolve` on every event to learn whether they talk to the database
themselves (SQLite) or to the machine's gateway (``memevo serve``, PostgreSQL), so this
module imports no driver and no validation library; the config file is read only when it
exists (``tomllib`` is cheap next to a database open).
"""

from __future__ import annotations

import os
from pathlib import Path

from memory_core.errors import ConfigError

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (docs/hooks.md, "Cost")
if TYPE_CHECKING:
    from collections.abc import Mapping

DATABASE_VARIABLE = "MEMEVO_DATABASE_URL"
QUEUE_VARIABLE = "MEMEVO_QUEUE_URL"
CONFIG_FILE = "config.toml"
SQLITE = "sqlite"
POSTGRESQL = "postgresql"
REDIS = "redis"
MASK = "********"


class _Endpoint(tuple):  # type: ignore[type-arg]
    """What a store and a queue setting share: ``kind`` first, then the ``url`` as given."""

    __slots__ = ()

    @property
    def kind(self) -> str:
        return self[0]  # type: ignore[no-any-return]

    @property
    def url(self) -> str:
        return self[1]  # type: ignore[no-any-return]


class Backend(_Endpoint):
    """``(kind, url, path)``: ``kind`` is :data:`SQLITE` or :data:`POSTGRESQL`; ``url`` the
    connection URL as given (``""`` for the default SQLite file); ``path`` the SQLite file
    (``None`` on PostgreSQL). A plain tuple, as the hook's other records (no class set-up)."""

    __slots__ = ()

    def __new__(cls, kind: str, url: str, path: Path | None) -> Backend:
        return tuple.__new__(cls, (kind, url, path))

    @property
    def path(self) -> Path | None:
        return self[2]  # type: ignore[no-any-return]

    @property
    def is_sqlite(self) -> bool:
        return self[0] == SQLITE

    @property
    def redacted(self) -> str:
        """What status and doctor show: the URL with its password masked, or the file."""
        return redact(self.url) if self.url else f"sqlite:///{self.path}"


class Queue(_Endpoint):
    """``(kind, url)``: ``kind`` is :data:`SQLITE`, :data:`POSTGRESQL` or :data:`REDIS`."""

    __slots__ = ()

    def __new__(cls, kind: str, url: str) -> Queue:
        return tuple.__new__(cls, (kind, url))

    @property
    def redacted(self) -> str:
        return redact(self.url) if self.url else "queue.db in the state dir"


def redact(url: str) -> str:
    """``url`` with any password replaced by ``********`` (in the authority and in a
    ``password=`` query parameter); the rest is kept so a person can tell servers apart."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        return url
    authority, slash, tail = rest.partition("/")
    if "@" in authority:
        userinfo, _, hostport = authority.rpartition("@")
        if ":" in userinfo:
            userinfo = userinfo.split(":", 1)[0] + ":" + MASK
        authority = f"{userinfo}@{hostport}"
    if "password=" in tail:
        import re

        tail = re.sub(r"(?i)(password=)[^&#]*", r"\g<1>" + MASK, tail)
    return f"{scheme}://{authority}{slash}{tail}"


def _config_values(home: Path) -> dict[str, str]:
    """``database_url`` and ``queue_url`` from ``config.toml`` in ``home`` (when present)."""
    from memory_core.config_file import config_data

    path = home / CONFIG_FILE
    try:
        data = config_data(home, "_url")
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror}; fix or remove the file") from None
    except ValueError as exc:  # not UTF-8, or not TOML
        raise ConfigError(f"cannot read {path}: {exc}; fix or remove the file") from None
    if data is None:
        return {}
    out = {}
    for name in ("database_url", "queue_url"):
        value = data.get(name)
        if value is not None and not isinstance(value, str):
            raise ConfigError(f"{path}: {name} must be a string URL")
        if value and value.strip():
            out[name] = value.strip()
    return out


def _setting(env: Mapping[str, str], variable: str, name: str, home: Path, file: dict[str, str] | None) -> str:
    value = (env.get(variable) or "").strip()
    if value:
        return value
    if file is None:
        file = _config_values(home)
    return file.get(name, "")


def parse_database_url(url: str, home: Path) -> Backend:
    """The :class:`Backend` a store URL names, or a :class:`ConfigError` that says what to set."""
    text = url.strip()
    if not text:
        return Backend(SQLITE, "", home / "memory.db")
    scheme = text.partition("://")[0].lower()
    if scheme in ("postgresql", "postgres"):
        rest = text.partition("://")[2]
        if not rest or rest.startswith("/") and len(rest) == 1:
            raise ConfigError(f"{DATABASE_VARIABLE}: {redact(text)} names no database; use postgresql://USER@HOST/DB")
        return Backend(POSTGRESQL, text, None)
    if scheme == "sqlite":
        path_text = text.partition("://")[2]
        if not path_text.startswith("/") or len(path_text) < 2:
            raise ConfigError(
                f"{DATABASE_VARIABLE}: {text!r} is not an absolute SQLite path; use sqlite:////abs/path/memory.db "
                "or leave it unset for memory.db in the state dir"
            )
        if Path(path_text) != home / "memory.db":
            raise ConfigError(
                f"{DATABASE_VARIABLE}: {text!r} is not memory.db in the state dir {home}; the SQLite store always "
                "lives there: set MEMEVO_HOME to the directory that holds it instead"
            )
        return Backend(SQLITE, "", home / "memory.db")
    raise ConfigError(
        f"{DATABASE_VARIABLE}: unsupported URL {redact(text)!r}; use postgresql://USER@HOST[:PORT]/DB, "
        "or leave it unset for SQLite in the state dir"
    )


def parse_queue_url(url: str, store: Backend) -> Queue:
    """The :class:`Queue` for ``url`` beside ``store``; a SQLite store takes no remote queue."""
    text = url.strip()
    if not text:
        return Queue(POSTGRESQL, store.url) if store.kind == POSTGRESQL else Queue(SQLITE, "")
    scheme = text.partition("://")[0].lower()
    if scheme not in ("redis", "rediss", "postgresql", "postgres"):
        raise ConfigError(
            f"{QUEUE_VARIABLE}: unsupported URL {redact(text)!r}; use redis://HOST[:PORT][/DB], "
            "or leave it unset so the queue follows the store"
        )
    if store.is_sqlite:
        raise ConfigError(
            f"{QUEUE_VARIABLE} is set ({redact(text)}) but the store is SQLite on this machine: workers elsewhere "
            f"could not reach memory.db; set {DATABASE_VARIABLE}=postgresql://… too, or unset {QUEUE_VARIABLE}"
        )
    if scheme in ("postgresql", "postgres"):
        return Queue(POSTGRESQL, text)
    return Queue(REDIS, text)


def resolve(home: Path, env: Mapping[str, str] | None = None) -> Backend:
    """The store of state dir ``home``: environment first, then ``config.toml``."""
    env = os.environ if env is None else env
    return parse_database_url(_setting(env, DATABASE_VARIABLE, "database_url", home, None), home)


def resolve_queue(home: Path, env: Mapping[str, str] | None = None) -> Queue:
    """The queue of state dir ``home``, checked against its store."""
    env = os.environ if env is None else env
    file = _config_values(home)
    store = parse_database_url(_setting(env, DATABASE_VARIABLE, "database_url", home, file), home)
    return parse_queue_url(_setting(env, QUEUE_VARIABLE, "queue_url", home, file), store)
