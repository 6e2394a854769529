"""`memevo status` says where captures are filed and that recall searches every project
(issue 24, item 6)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from memory_core.store.engines.database import Store
from memory_core.store.tables.memories import put_memory
from tests.factories import make_memory


def test_status_names_the_capture_project_and_the_recall_scope(
    home: Path, cli_run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with Store.open(home) as store, store.transaction() as conn:
        put_memory(conn, make_memory("Redis listens on port 6380", origin="/work/app"))
        put_memory(conn, make_memory("The docs build with mkdocs", origin="/work/docs"))
        put_memory(conn, make_memory("Tests run on two cores", origin="/work/app"))
    project = tmp_path / "project"
    project.mkdir()
    (tmp_path / "link").symlink_to(project)
    monkeypatch.chdir(tmp_path / "link")  # filed under the real path, not the link

    text = cli_run("status").output
    filed = "captures:        filed under their project, the real path of the agent's working directory"
    assert f"{filed} (from here: {os.path.realpath(project)})" in text
    assert "recall:          searches every project at once (2 projects hold active memories)" in text

    scope = json.loads(cli_run("status", "--json").output)["scope"]
    assert scope == {
        "captures_filed_by": "working_directory",
        "recall_searches": "all_projects",
        "projects_with_active_memories": 2,
        "capture_origin_here": os.path.realpath(project),
        "excluded_here": None,  # the exclude setting names no directory here
    }
