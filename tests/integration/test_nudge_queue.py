"""The hooks' own nudge writer stays byte-compatible with huey: the message unpickles as the
one ``huey.task()`` builds, the tables and the queue are huey's, and a consumer reads it.
On PostgreSQL and Redis the nudges written by ``cli.nudge`` (through huey's storage, or in
the store's own transaction) are read back by huey's own storage as the right messages."""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import pytest

from tests.support.processes import python_process
from tests.support.redis_server import redis_url  # noqa: F401  (fixture)
from workers import nudge_queue
from workers.queue_names import url_login

# In a fresh process, so workers.app resolves this test's MEMEVO_HOME.
_COMPARE = """
import json, pickle
from huey.storage import SqliteStorage
from workers import nudge_queue
from workers.app import huey
from workers.tasks import consolidate, recover

out = {"ddl_equal": list(nudge_queue.DDL) == list(SqliteStorage.ddl), "queue": huey.storage.name,
       "file": huey.storage.filename, "messages": []}
for task, args, kwargs in ((consolidate, ("abc",), {"forced": False}), (consolidate, (None,), {"forced": True}),
                           (recover, (), {})):
    theirs = huey._registry.create_message(task.s(*args, **kwargs))
    name = theirs.name.rsplit(".", 1)[1]
    ours = pickle.loads(nudge_queue.message_bytes(name, args, kwargs, message_id=theirs.id))
    out["messages"].append([type(ours).__module__, type(ours).__name__, ours == theirs, repr(ours), repr(theirs)])
nudge_queue.enqueue("consolidate", ("src1",), {"forced": False})
nudge_queue.enqueue("recover")
out["pending"] = [[t.name, list(t.args), t.kwargs] for t in huey.pending()]
task = huey.dequeue()
out["dequeued"] = [type(task).__name__, list(task.args)]
print(json.dumps(out))
"""


@pytest.mark.sqlite_only  # the SQLite queue file; PostgreSQL and Redis are below
def test_messages_tables_and_queue_are_hueys(home: Path) -> None:
    result = python_process(_COMPARE, env={"MEMEVO_HOME": str(home)})
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["ddl_equal"] and out["queue"] == nudge_queue.QUEUE_NAME
    assert out["file"] == str(home / nudge_queue.QUEUE_FILE)
    for module, name, equal, ours, theirs in out["messages"]:
        assert (module, name, equal) == ("huey.registry", "Message", True), (ours, theirs)
    assert out["pending"] == [["consolidate", ["src1"], {"forced": False}], ["recover", [], {}]]
    assert out["dequeued"] == ["consolidate", ["src1"]]
    assert oct((home / "queue.db").stat().st_mode & 0o777) == "0o600"


def test_task_ids_look_like_hueys() -> None:
    ids = {nudge_queue.task_id() for _ in range(200)}
    assert len(ids) == 200
    for value in ids:
        parts = value.split("-")
        assert [len(p) for p in parts] == [8, 4, 4, 4, 12] and parts[2][0] == "4" and parts[3][0] in "89ab"


def test_an_unknown_task_or_value_is_refused() -> None:
    with pytest.raises(KeyError):
        nudge_queue.message_bytes("evolve_everything")
    with pytest.raises(TypeError):
        nudge_queue.message_bytes("consolidate", (1.5,))


@pytest.mark.parametrize(
    "fields",
    [
        (),
        ("a",),
        (None, True, False, 0, 255),
        ("ü 数据库 \U0001f600", ("x", None)),
        ({}, {"forced": True}),
        ({"a": ("b", {"c": None})},),
    ],
)
def test_the_small_pickler_agrees_with_pickle(fields: tuple) -> None:
    assert pickle.loads(b"\x80\x02" + nudge_queue._pickled(fields) + b".") == fields


# On a PostgreSQL store, in a fresh process: nudges before the queue tables exist (written in
# the capture's transaction: refused without harming it), through huey's storage, in a
# transaction that commits and in one that rolls back; then huey reads the queue.
_PG_NUDGES = """
import json
from cli.nudge import nudge_consolidate, nudge_consolidate_in, nudge_recover
from memory_core.paths import state_home
from memory_core.store.engines.database import Store
from workers import nudge_queue
from workers.queue_names import pg_channel

out = {}
with Store.open(state_home()) as store:
    with store.transaction() as conn:
        out["before_tables"] = nudge_consolidate_in(conn, "early")
        conn.execute("INSERT INTO metadata (key, value) VALUES ('nudge_probe', 'kept')")
    out["probe_kept"] = store.conn.execute("SELECT value FROM metadata WHERE key='nudge_probe'").fetchone()[0]
    out["huey_nudges"] = [nudge_consolidate("src1"), nudge_recover()]
    with store.transaction() as conn:
        out["in_transaction"] = nudge_consolidate_in(conn, "src2", forced=True)
    try:
        with store.transaction() as conn:
            nudge_consolidate_in(conn, "rolled-back")
            raise RuntimeError("abort")
    except RuntimeError:
        pass
from workers.main import huey  # what the consumer loads (the tasks registered)
out["kind"] = type(huey).__name__
out["table"] = getattr(huey.storage, "table_task", None)
out["name"] = huey.name
channel = pg_channel(huey.name, nudge_queue.PG_TABLE_PREFIX)  # what the hook's in-transaction nudge notifies
out["channel_equal"] = getattr(huey.storage, "channel", channel) == channel
out["pending"] = [[type(t).__module__, t.name, list(t.args), t.kwargs] for t in huey.pending()]
task = huey.dequeue()
out["dequeued"] = [type(task).__name__, list(task.args)]
print(json.dumps(out))
"""


@pytest.mark.postgres_only
def test_postgres_nudges_are_read_by_postgreshuey(pg_url: str, home: Path) -> None:
    result = python_process(_PG_NUDGES, env={"MEMEVO_HOME": str(home), "MEMEVO_DATABASE_URL": pg_url})
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["before_tables"] is False and out["probe_kept"] == "kept"
    assert out["huey_nudges"] == [True, True] and out["in_transaction"] is True
    assert out["kind"] == "PostgresHuey" and out["table"] == nudge_queue.PG_TASK_TABLE and out["channel_equal"]
    assert out["name"] == "memevo@" + url_login(pg_url)  # the login's own queue
    assert out["pending"] == [
        ["workers.tasks", "consolidate", ["src1"], {"forced": False}],
        ["workers.tasks", "recover", [], {}],
        ["workers.tasks", "consolidate", ["src2"], {"forced": True}],
    ]
    assert out["dequeued"] == ["consolidate", ["src1"]]
    assert not (home / "queue.db").exists()


@pytest.mark.postgres_only
def test_redis_nudges_are_read_by_redishuey(pg_url: str, home: Path, redis_url: str) -> None:  # noqa: F811
    import redis

    db = int(redis_url.rsplit("/", 1)[1])
    redis.Redis.from_url(redis_url).flushdb()
    env = {"MEMEVO_HOME": str(home), "MEMEVO_DATABASE_URL": pg_url, "MEMEVO_QUEUE_URL": redis_url}
    result = python_process(_PG_NUDGES, env=env)
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    # The queue is not in the store's database: nothing is written in its transactions.
    assert out["before_tables"] is False and out["in_transaction"] is False and db == 0
    assert (
        out["huey_nudges"] == [True, True]
        and out["kind"] == "RedisHuey"
        and out["name"] == "memevo@" + url_login(pg_url)
    )
    assert out["pending"] == [
        ["workers.tasks", "consolidate", ["src1"], {"forced": False}],
        ["workers.tasks", "recover", [], {}],
    ]
    assert out["dequeued"] == ["consolidate", ["src1"]]


# A capture through the hook's own code on a PostgreSQL store whose queue tables exist: the
# nudge is written in the capture's transaction, once (not again after the commit, whose
# queue this script makes unavailable).
_PG_CAPTURE = """
import json
from cli.hooks.entry import run_hook
from workers.main import huey

huey.storage.enqueue(b"probe", 0)  # the queue's tables exist, as once a consumer has run
huey.storage.flush_queue()
import cli.nudge
cli.nudge._enqueue = lambda *args, **kwargs: False  # a nudge after the commit would be lost here
raw = json.dumps({"schema": "memevo.hook/v1", "event": "turn_end", "session_id": "s1", "cwd": "/work/app",
                  "user_messages": ["remember that the staging database listens on port 5433"]}).encode()
assert run_hook(raw, "turn_end", None).stderr == ""
print(json.dumps([[t.name, list(t.args)] for t in huey.pending()]))
"""


@pytest.mark.postgres_only
def test_a_capture_on_postgresql_is_nudged_in_its_own_transaction_once(pg_url: str, home: Path) -> None:
    from memory_core.store.engines.database import Store

    result = python_process(_PG_CAPTURE, env={"MEMEVO_HOME": str(home), "MEMEVO_DATABASE_URL": pg_url})
    assert result.returncode == 0, result.stderr
    with Store.open_readonly(home) as store:
        (source_id,) = store.conn.execute("SELECT id FROM sources").fetchone()
    assert json.loads(result.stdout) == [["consolidate", [source_id]]]
