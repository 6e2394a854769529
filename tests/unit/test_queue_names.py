"""Each person's queue is named after the login their store URL connects as, read from the URL
without connecting, exactly as libpq (psycopg's driver) reads it."""

from __future__ import annotations

from pathlib import Path

import pytest
from psycopg.conninfo import conninfo_to_dict

from workers.queue_names import QUEUE_NAME, pg_channel, queue_name, url_login

URLS = [
    "postgresql://bob:secret@db.example.com/memevo",
    "postgresql://bob@db.example.com:5433/memevo?sslmode=verify-full",
    "postgres://alice_admin@127.0.0.1/memevo",
    "postgresql://a%40corp:p%40ss@db/memevo",  # percent-encoded user
    "postgresql://bob@db/memevo?user=carol",  # the parameter wins, as in libpq
    "postgresql:///memevo?host=/var/run/postgresql&user=dave",
    "postgresql://bob@h1,carol@h2/memevo",  # several hosts: the first "@" ends the user part
    "postgresql://bob@db/memevo?options=-csearch_path%3Dx&user=erin",
]


@pytest.mark.parametrize("url", URLS)
def test_the_login_of_a_url_is_the_one_libpq_connects_as(url: str) -> None:
    assert url_login(url, {}) == conninfo_to_dict(url)["user"]


@pytest.mark.parametrize(
    "url", ["postgresql://db.example.com/memevo", "postgresql://:secret@db/memevo", "postgresql:///memevo"]
)
def test_a_url_without_a_user_connects_as_pguser_else_the_os_user(url: str) -> None:
    import getpass

    assert "user" not in conninfo_to_dict(url)
    assert url_login(url, {"PGUSER": "frank"}) == "frank"
    assert url_login(url, {}) == getpass.getuser()


def test_a_sqlite_store_keeps_the_one_plain_queue(tmp_path: Path) -> None:
    assert queue_name(tmp_path, {}) == QUEUE_NAME
    assert queue_name(tmp_path, {"MEMEVO_DATABASE_URL": f"sqlite://{tmp_path}/memory.db"}) == QUEUE_NAME


def test_each_postgresql_login_has_a_queue_of_its_own(tmp_path: Path) -> None:
    def name(url: str, **env: str) -> str:
        return queue_name(tmp_path, {"MEMEVO_DATABASE_URL": url, **env})

    assert name("postgresql://alice:x@db/memevo") == "memevo@alice"
    assert name("postgresql://bob:y@db/memevo") == "memevo@bob"
    # The same person through another address, or with a Redis queue, names the same queue.
    assert name("postgresql://alice@db.internal:5432/memevo?sslmode=require") == "memevo@alice"
    assert name("postgresql://alice:x@db/memevo", MEMEVO_QUEUE_URL="redis://127.0.0.1/0") == "memevo@alice"
    assert name("postgresql://db/memevo", PGUSER="carol") == "memevo@carol"


@pytest.mark.parametrize("login", ["alice", "a" * 63, "bob_" + "x" * 40])
def test_the_notify_channel_is_the_one_hueys_postgres_storage_listens_on(login: str) -> None:
    from huey.storage import PostgresStorage

    name = f"{QUEUE_NAME}@{login}"
    storage = PostgresStorage(name, dsn="postgresql://nowhere/none", table_prefix="memevo_huey", create_tables=False)
    assert pg_channel(name, "memevo_huey") == storage.channel
    assert len(pg_channel(name, "memevo_huey").encode()) <= 63
