"""Nominating the project states a progress source may update."""

from __future__ import annotations

from pathlib import Path

import pytest

from memory_core.capture.work.progress import resources_of
from memory_core.capture.work.progress_targets import MAX_TARGETS, is_pending, nominate
from memory_core.store.engines.database import Store
from tests.factories import make_memory, seed
from tests.progress.helpers import bash, edit, planned

ORIGIN = "/work/app"


def state(content: str, *, origin: str = ORIGIN, at: float = 1_700_000_000.0, **extra):
    return make_memory(content, origin=origin, kind="project_state", at=at, **extra)


def nominated(
    store: Store, messages: list[str], operations: list, *, cwd: str = ORIGIN, origin: str = ORIGIN
) -> list[str]:
    result = planned(messages, operations, cwd=cwd)
    return [n.memory_id for n in nominate(store.conn, origin=origin, topics=result.topics, resources=result.resources)]


COMMIT = [bash("git commit -am wip", "[main 1] wip")]


def test_topic_of_the_request_nominates_a_state(store: Store) -> None:
    widget = state("Widget parser rewrite: not committed yet")
    billing = state("Billing export: waiting for review")
    seed(store, widget, billing)
    assert nominated(store, ["Commit the widget parser changes"], COMMIT) == [widget.id]


def test_generic_progress_words_are_no_topic(store: Store) -> None:
    seed(store, state("Docs site: changes not committed yet, tests pending"))
    assert nominated(store, ["commit the changes and run the tests"], COMMIT) == []


def test_the_working_directory_alone_nominates_nothing(store: Store) -> None:
    seed(store, state(f"{ORIGIN}: release branch not pushed yet"))
    assert nominated(store, ["push it"], [bash("git push", "ok")]) == []


def test_cd_and_git_c_name_qualified_paths(store: Store, tmp_path: Path) -> None:
    repo, lib = tmp_path / "svc", tmp_path / "lib"
    by_cd = state(f"{repo}: the migration is not committed yet")
    by_git_c = state(f"Library at {lib}: version bump pending")
    unrelated = state(f"{tmp_path}/elsewhere: not pushed")
    seed(store, by_cd, by_git_c, unrelated)
    ops = [bash(f"cd {repo} && git commit -am m", "ok"), bash(f"git -C {lib} push", "ok")]
    assert sorted(nominated(store, ["ship it"], ops)) == sorted([by_cd.id, by_git_c.id])


def test_file_operations_name_their_checkout_root(store: Store, tmp_path: Path) -> None:
    repo = tmp_path / "checkout"
    (repo / ".git").mkdir(parents=True)
    root_state = state(f"{repo}: config refactor in progress")
    inside_state = state(f"{repo}/docs/guide.md still needs an update")
    seed(store, root_state, inside_state)
    ids = nominated(store, ["finish the refactor"], [edit(f"{repo}/src/config.py")])
    assert sorted(ids) == sorted([root_state.id, inside_state.id])


def test_bare_project_name_of_a_resource_matches(store: Store, tmp_path: Path) -> None:
    repo = tmp_path / "memevo"
    (repo / ".git").mkdir(parents=True)
    named = state("memevo: the learning command is not pushed yet")
    seed(store, named)
    assert nominated(store, ["push it"], [bash(f"git -C {repo} push", "ok")]) == [named.id]


def test_conflicting_path_with_the_same_basename_cannot_qualify_by_name_or_topic(store: Store, tmp_path: Path) -> None:
    here, old_clone = tmp_path / "new" / "widget", tmp_path / "old" / "widget"
    (here / ".git").mkdir(parents=True)
    other_clone = state(f"widget at {old_clone}: parser fix not pushed")
    seed(store, other_clone)
    assert nominated(store, ["push the widget parser fix"], [bash(f"git -C {here} push", "ok")]) == []


def test_tool_output_never_nominates(store: Store, tmp_path: Path) -> None:
    repo = tmp_path / "payments"
    seed(store, state(f"{repo}: refund flow not committed"))
    ops = [bash("git commit -am x", f"[main 1] x\n(cwd was {repo}, project payments)")]
    assert nominated(store, ["commit it"], ops) == []


def test_only_active_unpinned_project_states_of_the_origin(store: Store) -> None:
    good = state("Widget parser: not committed")
    seed(
        store,
        good,
        state("Widget parser pinned: not committed", pinned=True),
        state("Widget parser forgotten: not committed", status="forgotten"),
        state("Widget parser conflicted: not committed", status="conflicted"),
        make_memory("Widget parser uses a PEG grammar", origin=ORIGIN, kind="fact"),
        state("Widget parser elsewhere: not committed", origin="/work/other"),
    )
    assert nominated(store, ["commit the widget parser"], COMMIT) == [good.id]


def test_dormant_states_may_still_be_nominated(store: Store) -> None:
    old = state("Widget parser: not pushed yet", at=1_000_000_000.0)  # years old: dormant for recall
    seed(store, old)
    assert nominated(store, ["push the widget parser"], [bash("git push", "ok")]) == [old.id]


def test_pending_states_first_and_at_most_eight(store: Store) -> None:
    done = [state(f"Widget module {i}: finished and released", at=1_700_000_100.0 + i) for i in range(6)]
    pending = [state(f"Widget module p{i}: not committed yet", at=1_700_000_000.0 + i) for i in range(4)]
    seed(store, *done, *pending)
    ids = nominated(store, ["commit the widget modules"], COMMIT)
    assert len(ids) == MAX_TARGETS
    assert set(ids[:4]) == {m.id for m in pending}  # pending first although older
    assert set(ids[4:]) <= {m.id for m in done}


@pytest.mark.parametrize(
    ("content", "pending"),
    [
        ("Parser fix: committed, not pushed yet", True),
        ("Release 2.1 blocked on review", True),
        ("迁移脚本尚未提交", True),
        ("Parser fix committed and pushed to origin/main", False),
        ("发布已经完成", False),
    ],
)
def test_pending_states_are_recognised(content: str, pending: bool) -> None:
    assert is_pending(content) is pending


def test_resources_inside_the_state_dir_are_ignored(tmp_path: Path) -> None:
    state_dir = tmp_path / "state"
    found = resources_of([f"cd {state_dir}/logs"], [("cd", str(tmp_path / "repo"))], str(tmp_path), (str(state_dir),))
    assert [r.path for r in found] == [str(tmp_path / "repo")]
