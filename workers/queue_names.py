"""Each person's queue: its name, from the login the store URL connects as.

On a PostgreSQL store a worker consolidates only its own login's sources, so a nudge for
Bob's source must reach Bob's workers, never Alice's: each login has a queue of its own,
``memevo@LOGIN``, in the shared queue tables (or Redis). Every process of one person (hooks
through ``memevo serve``, the CLI, the worker) reads the login from the store URL without
connecting, so they all name the same queue; a SQLite store (one person) keeps the one
queue ``memevo``. The store's owner is named as anyone else: which login owns the tables is
not known without connecting. Standard library and the store's URL settings only.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from urllib.parse import unquote

from memory_core.paths import state_home
from memory_core.store.engines.backend import POSTGRESQL, resolve

QUEUE_NAME = "memevo"  # a SQLite store's queue, and the stem of every login's
PG_CHANNEL_BYTES = 63  # PostgreSQL's longest channel name (NAMEDATALEN - 1)


def url_login(url: str, env: Mapping[str, str] | None = None) -> str:
    """The login a ``postgresql://`` URL connects as, decided as libpq decides it but without
    connecting: the URL's ``user`` parameter, else its user part, else ``PGUSER``, else the
    name of the operating-system user running the process."""
    env = os.environ if env is None else env
    rest = url.partition("://")[2]
    cut = min((i for i in (rest.find("/"), rest.find("?")) if i >= 0), default=len(rest))
    authority, query = rest[:cut], rest.partition("?")[2].partition("#")[0]
    user = ""
    if "@" in authority:
        user = unquote(authority.partition("@")[0].partition(":")[0])
    for pair in query.split("&"):
        key, _, value = pair.partition("=")
        if unquote(key) == "user" and value:
            user = unquote(value)  # a parameter overrides the user part, as in libpq
    if user:
        return user
    if env.get("PGUSER"):
        return str(env["PGUSER"])
    try:
        import pwd

        return pwd.getpwuid(os.geteuid()).pw_name
    except (ImportError, KeyError):
        import getpass

        return getpass.getuser()


def queue_name(home: Path | None = None, env: Mapping[str, str] | None = None) -> str:
    """The name of the queue of the person whose state dir is ``home``: :data:`QUEUE_NAME`
    on a SQLite store (one person), ``QUEUE_NAME@login`` on a PostgreSQL store, whichever
    queue it uses (PostgresHuey, Redis), the store owner's login included."""
    store = resolve(home or state_home(), env)
    if store.kind != POSTGRESQL:
        return QUEUE_NAME
    return f"{QUEUE_NAME}@{url_login(store.url, env)}"


def pg_channel(name: str, table_prefix: str) -> str:
    """The channel huey's ``PostgresStorage`` of queue ``name`` with tables ``table_prefix``
    LISTENs on (an md5 of it when it would pass PostgreSQL's 63 bytes)."""
    channel = f"{table_prefix}.q.{name}"
    if len(channel.encode("utf-8")) > PG_CHANNEL_BYTES:
        import hashlib  # only warm processes with a PostgreSQL store come here

        channel = "huey.q." + hashlib.md5(channel.encode("utf-8")).hexdigest()
    return channel
