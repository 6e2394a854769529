"""The hooks' own nudge writer stays byte-compatible with huey: the message unpickles as the
one ``huey.task()`` builds, the tables and the queue are huey's, and a consumer reads it."""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import pytest

from tests.support.processes import python_process
from workers import nudge_queue

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
