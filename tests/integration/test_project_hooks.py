"""Real hook processes file captures under the repository, from any checkout, worktree or
subdirectory of it, and adopt the claims its paths held before."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from memory_core.store.engines.database import Store
from memory_core.store.tables.origin_aliases import PREFIX
from tests.factories import make_memory, seed
from tests.support.git_checkouts import add_worktree, make_repo
from tests.support.processes import memevo_process

# hook processes open memory.db; on PostgreSQL they go through the gateway (tests/hooks/test_gateway*)
pytestmark = pytest.mark.sqlite_only

SHOP = "github.com/acme/shop"


def remember(cwd: Path, text: str, env: dict[str, str] | None = None) -> None:
    payload = {
        "schema": "memevo.hook/v1",
        "agent": "test-agent",
        "event": "turn_end",
        "session_id": f"sess-{abs(hash((str(cwd), text)))}",
        "cwd": str(cwd),
        "user_messages": [f"remember that {text}"],
    }
    result = memevo_process("hook", "turn_end", input=json.dumps(payload), env=env)
    assert result.returncode == 0 and result.stdout == "" and result.stderr == "", result


def origins(home: Path) -> list[str]:
    conn = sqlite3.connect(home / "memory.db")
    try:
        return [row[0] for row in conn.execute("SELECT origin FROM sources ORDER BY created_at, id")]
    finally:
        conn.close()


def test_checkouts_worktrees_and_subdirectories_are_one_project(home: Path, tmp_path: Path) -> None:
    alice = make_repo(tmp_path / "home" / "alice" / "work" / "shop", "git@github.com:acme/shop.git")
    (alice / "src" / "api").mkdir(parents=True)
    worktree = add_worktree(alice, tmp_path / "home" / "alice" / "shop-hotfix")
    bob = make_repo(tmp_path / "Users" / "bob" / "code" / "shop", "https://github.com/acme/shop")
    remember(alice / "src" / "api", "the api listens on port 8080")
    remember(worktree, "the hotfix branch deploys on Fridays")
    remember(bob, "the shop uses PostgreSQL 15")
    assert origins(home) == [SHOP, SHOP, SHOP]


def test_no_remote_keeps_the_main_root_and_bad_git_keeps_the_directory(home: Path, tmp_path: Path) -> None:
    local = make_repo(tmp_path / "local")
    (local / "lib").mkdir()
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / ".git").write_text(f"gitdir: {tmp_path / 'nowhere'}\n")
    malformed = make_repo(tmp_path / "malformed", "https://exa mple.com/x")
    remember(local / "lib", "the library builds with make")
    remember(broken, "the broken checkout still captures")
    remember(malformed, "the malformed remote falls back to the path")
    assert origins(home) == [str(local), str(broken), str(malformed)]


def test_an_explicit_name_and_adopted_path_claims(home: Path, tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "shop", "git@github.com:acme/shop.git")
    (repo / "docs").mkdir()
    with Store.open(home) as store:
        seed(store, make_memory("The shop docs build with mkdocs", origin=str(repo / "docs")))
    remember(repo / "docs", "the docs deploy from the main branch")
    remember(repo, "the shop has a staging site", env={"MEMEVO_PROJECT": "acme-shop"})
    assert origins(home) == [SHOP, "acme-shop"]
    conn = sqlite3.connect(home / "memory.db")
    try:
        rows = conn.execute("SELECT key, value FROM metadata WHERE key LIKE ?", (PREFIX + "%",)).fetchall()
    finally:
        conn.close()
    assert rows == [(PREFIX + str(repo / "docs"), SHOP)]
