"""Claims captured under a path origin are found from the project that path now belongs to."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memory_core import clock
from memory_core.capture.intake import adopt_project_paths, capture_project, capture_source
from memory_core.capture.work.progress_targets import nominate
from memory_core.config import load_settings
from memory_core.consolidation.targets import mentioned_claims
from memory_core.store.engines.database import Store
from memory_core.store.tables.memories import get_memory
from memory_core.store.tables.origin_aliases import PREFIX, project_origins, same_project
from memory_core.store.tables.sources import require_source
from tests.factories import make_memory, seed
from tests.support.fake_model import FakeModelServer, Reply
from tests.support.git_checkouts import add_worktree, make_repo
from workers.consolidate import consolidate_source

SHOP = "github.com/acme/shop"


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    repo = make_repo(tmp_path / "alice" / "shop", "git@github.com:acme/shop.git")
    (repo / "src").mkdir()
    return repo


def adopt(store: Store, directory: Path, home: Path) -> None:
    with store.transaction() as conn:
        adopt_project_paths(conn, capture_project(str(directory), home))


def aliases(store: Store) -> dict[str, str]:
    rows = store.conn.execute("SELECT key, value FROM metadata WHERE key >= ? ORDER BY key", (PREFIX,))
    return {k[len(PREFIX) :]: v for k, v in rows if k.startswith(PREFIX)}


def test_path_origins_with_claims_become_the_projects(store: Store, checkout: Path, home: Path, tmp_path: Path) -> None:
    sibling = make_repo(tmp_path / "alice" / "other", "git@github.com:acme/other.git")
    seed(
        store,
        make_memory("Shop root fact about the outbox", origin=str(checkout)),
        make_memory("Shop src fact about the parser", origin=str(checkout / "src")),
        make_memory("Other repository fact", origin=str(sibling)),
    )
    adopt(store, checkout / "src", home)
    adopt(store, checkout / "src", home)  # the second capture records nothing new
    assert aliases(store) == {str(checkout): SHOP, str(checkout / "src"): SHOP}
    assert project_origins(store.conn, SHOP) == (SHOP, str(checkout), str(checkout / "src"))
    # An old origin sees its whole project too (a source captured before the upgrade).
    assert project_origins(store.conn, str(checkout / "src")) == project_origins(store.conn, SHOP)
    assert same_project(store.conn, str(checkout), str(checkout / "src"))
    assert not same_project(store.conn, str(checkout), str(sibling))
    assert project_origins(store.conn, str(sibling)) == (str(sibling),)


def test_a_worktree_adopts_its_own_and_the_main_roots_claims(
    store: Store, checkout: Path, home: Path, tmp_path: Path
) -> None:
    worktree = add_worktree(checkout, tmp_path / "shop-feature")
    seed(
        store,
        make_memory("Feature worktree note", origin=str(worktree)),
        make_memory("Main checkout note", origin=str(checkout)),
    )
    adopt(store, worktree, home)
    assert aliases(store) == {str(checkout): SHOP, str(worktree): SHOP}


def test_a_path_moves_to_the_project_it_resolves_to_now(store: Store, checkout: Path, home: Path) -> None:
    local = make_repo(checkout.parent / "local")
    seed(store, make_memory("Local checkout fact", origin=str(local)))
    adopt(store, local, home)  # no remote: the path is the project, nothing to alias
    assert aliases(store) == {}
    (local / ".git" / "config").write_text('[remote "origin"]\n\turl = https://github.com/acme/local\n')
    adopt(store, local, home)
    assert aliases(store) == {str(local): "github.com/acme/local"}
    (home / "config.toml").write_text(f'[project]\n"{local}" = "acme-local"\n')
    adopt(store, local, home)
    assert aliases(store) == {str(local): "acme-local"}


def test_old_project_states_and_claims_are_targeted_from_the_project(store: Store, checkout: Path, home: Path) -> None:
    state = make_memory(
        "Billing export: release notes not pushed yet", origin=str(checkout / "src"), kind="project_state"
    )
    fact = make_memory("The billing export writes CSV files to the outbox folder", origin=str(checkout))
    seed(store, state, fact)
    project = capture_project(str(checkout / "src"), home)
    assert project.origin == SHOP
    before = nominate(store.conn, origin=SHOP, topics=["push the billing export release notes"], resources=[])
    assert before == []  # not yet known as the project's
    adopt(store, checkout / "src", home)
    nominated = nominate(store.conn, origin=SHOP, topics=["push the billing export release notes"], resources=[])
    assert [n.memory_id for n in nominated] == [state.id]
    with store.transaction() as conn:
        progress = capture_source(
            conn, source_type="progress", origin=SHOP, text="pushed the notes", now=clock.now(), target_ids=(state.id,)
        )
        statement = capture_source(
            conn,
            source_type="user_statement",
            origin=SHOP,
            text="remember that the billing export writes CSV files to the outbox folder daily",
            now=clock.now(),
        )
    assert [m.id for m in mentioned_claims(store.conn, require_source(store.conn, progress.source_id))] == [state.id]
    assert fact.id in [m.id for m in mentioned_claims(store.conn, require_source(store.conn, statement.source_id))]


def test_a_claim_of_an_adopted_path_is_replaced_from_the_project(
    home: Path, checkout: Path, model: FakeModelServer
) -> None:
    old = make_memory("The staging database listens on port 5432", origin=str(checkout), kind="fact")
    with Store.open(home) as store:
        seed(store, old)
        adopt(store, checkout / "src", home)
        with store.transaction() as conn:
            sid = capture_source(
                conn,
                source_type="user_statement",
                origin=SHOP,
                text="remember that the staging database now listens on port 5433",
                now=clock.now(),
            ).source_id
    model.enqueue(
        Reply.of_claims([{"kind": "fact", "content": "The staging database listens on port 5433", "replaces": old.id}])
    )
    outcome = consolidate_source(load_settings(), sid)
    assert outcome.status == "done", outcome
    prompt = json.dumps(model.requests[0])
    assert old.id in prompt  # the old path claim was offered to the model
    with Store.open(home) as store:
        replaced = get_memory(store.conn, old.id)
        assert replaced is not None and replaced.status == "superseded"
        (new,) = [
            m for m in store.conn.execute("SELECT origin, status FROM memories WHERE id <> ?", (old.id,)).fetchall()
        ]
        assert tuple(new) == (SHOP, "active")


def test_list_here_shows_the_projects_old_claims(
    store: Store, checkout: Path, home: Path, cli_run, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    old = make_memory("Shop root fact about the outbox", origin=str(checkout))
    elsewhere = make_memory("A fact of another directory", origin=str(tmp_path))
    new = make_memory("Shop fact captured as the project", origin=SHOP)
    seed(store, old, elsewhere, new)
    adopt(store, checkout / "src", home)
    monkeypatch.chdir(checkout / "src")
    listed = json.loads(cli_run("list", "--origin", "here", "--json").output)["memories"]
    assert sorted(m["id"] for m in listed) == sorted([old.id, new.id])


def test_content_forgotten_under_an_old_path_stays_forgotten_in_the_project(
    store: Store, checkout: Path, home: Path
) -> None:
    from memory_core.ids import content_hash
    from memory_core.store.tables.suppression import block, is_blocked

    text = "Ship the CLI before the web page"
    with store.transaction() as conn:
        block(conn, str(checkout), content_hash(text), clock.now(), "forgotten")
    seed(store, make_memory("A claim that makes the path an origin", origin=str(checkout)))
    assert not is_blocked(store.conn, SHOP, content_hash(text))
    adopt(store, checkout, home)
    assert is_blocked(store.conn, SHOP, content_hash(text))
    with store.transaction() as conn:
        result = capture_source(
            conn, source_type="summary", origin=SHOP, text=f"Summary.\n- Decision: {text}", now=clock.now()
        )
    assert result.created and result.local_claims == 0


def test_a_manual_change_under_an_old_path_invalidates_the_projects_model_output(
    store: Store, checkout: Path, home: Path
) -> None:
    from memory_core.store.tables.generations import bump_generation, current_generation

    seed(store, make_memory("A claim that makes the path an origin", origin=str(checkout)))
    adopt(store, checkout, home)
    before = current_generation(store.conn, SHOP)
    with store.transaction() as conn:
        bump_generation(conn, str(checkout))
    assert current_generation(store.conn, SHOP) == before + 1
    with store.transaction() as conn:
        bump_generation(conn, SHOP)
    assert current_generation(store.conn, str(checkout)) == 2
