"""Which operations of a turn become the observations of one bounded progress source."""

from __future__ import annotations

from pathlib import Path

import pytest

from memory_core.capture.work.progress import (
    MAX_OBSERVATIONS,
    OPERATION_BYTES,
    OUTPUT_BYTES,
    SOURCE_BYTES,
    clip_middle_bytes,
    is_question,
    work_request,
)
from memory_core.privacy.sanitize import sanitize_text
from tests.progress.helpers import bash, edit, op, planned, skipped

REQUEST = "Commit the parser fix and push it"


def size(text: str) -> int:
    return len(text.encode("utf-8"))


# -- what qualifies -----------------------------------------------------------------------------


def test_commit_and_failed_push_become_one_source_in_the_order_they_ran() -> None:
    result = planned(
        REQUEST,
        [
            bash("git status", "On branch main"),
            bash('git commit -am "Fix the parser"', "[main 1a2b3c4] Fix the parser\n 1 file changed"),
            bash("git push", "fatal: unable to access 'http://127.0.0.1:9/': Connection refused", "error"),
        ],
        final="Committed; the push failed.",
    )
    assert [o.category for o in result.observations] == ["inspect", "commit", "push"]
    assert [o.status for o in result.observations] == ["ok", "ok", "error"]
    assert result.completion == "finished" and result.omitted == 0
    text = result.text
    assert text.index("git status") < text.index("git commit") < text.index("git push")
    assert "Connection refused" in text and "completion: finished" in text
    assert "request: Commit the parser fix and push it" in text
    assert "assistant report (the agent's words, not proof): Committed; the push failed." in text


@pytest.mark.parametrize(
    "command",
    [
        "git commit -m x",
        "git push origin main",
        "git merge feature",
        "python -m pytest -q",
        "npm test",
        "cargo build",
        "make",
        "pip install -e .",
        "./deploy.sh",
        "echo ok > notes.txt",
        "mkdir build",
    ],
)
def test_each_kind_of_work_qualifies(command: str) -> None:
    assert planned("do it", [bash(command, "ok")]).observations[0].category != "inspect"


def test_file_edits_qualify() -> None:
    result = planned("rename the flag", [edit("/work/app/src/flags.py")])
    assert result.observations[0].category == "write"


@pytest.mark.parametrize(
    "operations",
    [
        [bash("ls -la", "a b"), bash("cat README.md", "text"), bash("grep -rn TODO .", "x")],
        [op("Read", '{"file_path": "/work/app/a.py"}', "code"), op("Grep", '{"pattern": "x"}', "a.py")],
        [op("Glob", '{"pattern": "**/*.py"}', "a.py"), op("WebFetch", '{"url": "https://x"}', "page")],
        [bash("git log --oneline | head", "abc"), bash("git diff", "+x"), bash("git status", "clean")],
        [bash("some-unknown-tool --flag", "it ran")],  # unknown commands are not recognised work
    ],
)
def test_pure_lookups_never_qualify(operations: list) -> None:
    assert skipped("look around the repository and commit if needed", operations) == "no_work_operation"


def test_no_work_request_means_no_source() -> None:
    work = [bash("git commit -am x", "[main abc] x")]
    assert skipped([], work) == "no_work_request"
    assert skipped(["   "], work) == "no_work_request"
    assert skipped(["why did the last commit fail?"], work) == "question"
    assert skipped(["do you remember what we decided about the parser?"], work) == "question"
    # A request phrased politely as a question is still a request.
    assert planned(["can you commit this?"], work).request == "can you commit this?"


def test_work_request_is_the_latest_message_that_asks_for_work() -> None:
    assert work_request(["fix the build", "what broke it?"]) == "fix the build"
    assert work_request(["请提交并推送修改"]) == "请提交并推送修改"
    assert is_question("测试通过了吗？") and not is_question("请帮我跑一下测试？")


def test_results_must_be_linked_to_their_calls() -> None:
    unlinked = [bash("git commit -am x", "[main abc] x", linked=False)]
    assert skipped(REQUEST, unlinked) == "no_linked_result"
    mixed = planned(REQUEST, [*unlinked, bash("git push", "ok")])
    assert [o.category for o in mixed.observations] == ["push"] and mixed.unlinked == 1
    assert "1 without a result" in mixed.text


# -- exclusions ---------------------------------------------------------------------------------


def test_memevo_own_commands_and_tools_are_excluded(tmp_path: Path) -> None:
    own = [
        bash("memevo status", "jobs: pending 1"),
        bash("python -m cli evolve", "done"),
        op("memory_recall", '{"query": "parser"}', "claims"),
        op("mcp__memevo__recall", "{}", "x"),
    ]
    assert skipped("check memevo and commit", own) == "excluded"
    result = planned(REQUEST, [*own, bash("git commit -am x", "[main abc] x")])
    assert [o.category for o in result.observations] == ["commit"]
    assert result.excluded == 4 and "memevo" not in result.text.split("observations:")[1].split("[1]")[1]


def test_operations_touching_the_state_dir_are_excluded(tmp_path: Path) -> None:
    state = tmp_path / "memevo-state"
    touching = [
        bash(f"sqlite3 {state}/memory.db 'select 1'", "1"),
        bash(f"rm -rf {state}/logs", ""),
        edit(f"{state}/config.toml"),
        bash("cat notes.txt", f"see {state}/memory.db"),  # the output names it
    ]
    assert skipped(REQUEST, touching, state_dir=state) == "excluded"
    kept = planned(REQUEST, [*touching, bash("git push", "ok")], state_dir=state)
    assert [o.category for o in kept.observations] == ["push"] and kept.excluded == 4
    assert str(state) not in kept.text


# -- importance, caps and order -------------------------------------------------------------------


def test_at_most_eight_kept_by_importance_in_chronological_order() -> None:
    operations = [bash(f"cat file{i}.txt", f"content {i}") for i in range(6)]
    operations.insert(1, bash("python -m pytest -q", "3 failed", "error"))
    operations.insert(3, bash("git commit -am wip", "[main 1] wip"))
    operations += [edit(f"/work/app/f{i}.py") for i in range(3)]
    operations += [bash("pip install requests", "installed"), bash("git push", "rejected", "error")]
    operations += [bash(f"ls dir{i}", "x") for i in range(4)]
    result = planned(REQUEST, operations)
    kept = result.observations
    assert len(kept) == MAX_OBSERVATIONS
    assert [o.position for o in kept] == sorted(o.position for o in kept)  # order they ran
    categories = [o.category for o in kept]
    for important in ("commit", "push", "test", "install"):
        assert important in categories
    assert categories.count("write") == 3 and categories.count("inspect") == 1
    assert result.omitted == len(operations) - MAX_OBSERVATIONS
    assert f"8 of {len(operations)} kept" in result.text and f"omitted {result.omitted}" in result.text


def test_commit_and_test_results_outrank_late_routine_inspection() -> None:
    operations = [bash("git commit -am x", "ok"), bash("pytest", "1 passed")]
    operations += [bash(f"cat late{i}.log", "...") for i in range(10)]
    kept = planned(REQUEST, operations).observations
    assert [o.category for o in kept[:2]] == ["commit", "test"]
    assert len(kept) == 8 and [o.position for o in kept[2:]] == list(range(6, 12))  # the latest lookups


def test_a_failure_wins_a_tie_of_importance() -> None:
    operations = [bash(f"pytest tests/t{i}.py", "passed") for i in range(8)]
    operations.insert(2, bash("pytest tests/flaky.py", "1 failed", "error"))
    kept = planned(REQUEST, operations).observations
    assert any(o.status == "error" for o in kept)


def test_operation_and_output_are_capped_keeping_head_and_tail() -> None:
    command = "python -m pytest " + " ".join(f"tests/test_{i}.py" for i in range(150))
    output = "collected 900 items\n" + "é" * 1800 + "\nFAILED tests/test_7.py::test_x - AssertionError"
    result = planned(REQUEST, [bash(command, output, "error")])
    [observation] = result.observations
    assert size(observation.operation) <= OPERATION_BYTES
    assert observation.operation.startswith("Bash: python -m pytest tests/test_0.py")
    assert size(observation.output) <= OUTPUT_BYTES
    assert observation.output.startswith("collected 900 items")
    assert observation.output.endswith("AssertionError")  # the failure ending is kept
    assert "bytes omitted" in observation.output


def test_clip_middle_bytes_never_exceeds_and_never_cuts_a_character() -> None:
    for limit in (1, 10, 64, 200, 2048):
        clipped = clip_middle_bytes("数据" * 3000, limit)
        assert size(clipped) <= limit
        clipped.encode("utf-8")  # valid text
    assert clip_middle_bytes("short", 100) == "short"


def test_whole_source_stays_within_28000_bytes() -> None:
    big_input = "x" * 2000
    big_output = "数" * 1300 + "\nerror: the end"
    operations = [bash(f"git commit -m '{i}{big_input}'", big_output) for i in range(12)]
    result = planned("发布" * 1000, operations, final="报告" * 3000)
    assert size(result.text) <= SOURCE_BYTES
    assert size(sanitize_text(result.text)) <= SOURCE_BYTES  # what capture stores
    assert len(result.observations) < MAX_OBSERVATIONS  # the budget dropped some
    assert result.omitted == 12 - len(result.observations)
    assert f"omitted {result.omitted}" in result.text


def test_interrupted_turn_keeps_operations_and_drops_the_report() -> None:
    result = planned(REQUEST, [bash("git commit -am x", "[main abc] x")], final="All pushed!", error=True)
    assert result.completion == "interrupted"
    assert "completion: interrupted" in result.text
    assert "All pushed!" not in result.text
    assert "assistant report: none (the final response failed)" in result.text


def test_secrets_in_operations_are_redacted() -> None:
    result = planned(
        REQUEST, [bash("API_TOKEN=abc123secretvalue ./deploy.sh", "using sk-ant-abcdefghijklmnopqrstuvwx")]
    )
    assert "abc123secretvalue" not in result.text and "sk-ant-abcdefghij" not in result.text


def test_identity_follows_the_request_and_the_call_ids() -> None:
    operations = [bash("git commit -am x", "ok")]
    first = planned(REQUEST, operations)
    assert planned(REQUEST, operations).identity == first.identity  # the same turn re-sent
    assert planned(REQUEST, [bash("git commit -am x", "ok")]).identity != first.identity  # new calls
    assert planned("another request", operations).identity != first.identity


def test_resources_come_from_the_user_and_operation_inputs_never_outputs(tmp_path: Path) -> None:
    repo = tmp_path / "widget"
    (repo / ".git").mkdir(parents=True)
    (repo / "src").mkdir()
    elsewhere = tmp_path / "other"
    result = planned(
        f"commit in {tmp_path}/docs please",
        [
            bash(f"cd {repo} && git commit -am x", f"see also {elsewhere}/x"),
            bash(f"git -C {tmp_path}/lib push", "ok"),
            edit(f"{repo}/src/a.py"),
        ],
        cwd=str(tmp_path),
    )
    found = {(r.how, r.path, r.root) for r in result.resources}
    assert ("cd", str(repo), str(repo)) in found
    assert ("git -C", f"{tmp_path}/lib", f"{tmp_path}/lib") in found
    assert ("file", f"{repo}/src/a.py", str(repo)) in found  # its checkout root
    assert ("mentioned", f"{tmp_path}/docs", f"{tmp_path}/docs") in found
    assert not any(str(elsewhere) in r.path for r in result.resources)
    assert not any(r.path == str(tmp_path) for r in result.resources)  # the working directory alone


# -- a long turn --------------------------------------------------------------------------------


def test_a_turn_of_thousands_of_calls_is_chosen_among_all_and_costs_the_kept_few(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import json

    from cli.hooks.event import MAX_OPERATIONS
    from memory_core.capture.work import progress

    cleaned: list[str] = []
    looked_up: list[str] = []
    clean, checkout_root = progress.clean, progress.checkout_root

    def counting_clean(text: str) -> str:
        cleaned.append(text)
        return clean(text)

    def counting_checkout_root(path: str, max_depth: int = 40) -> str | None:
        looked_up.append(path)
        return checkout_root(path, max_depth)

    monkeypatch.setattr(progress, "clean", counting_clean)
    monkeypatch.setattr(progress, "checkout_root", counting_checkout_root)
    commit = bash('git commit -am "Parser fix"', "[main 1a2b3c4] Parser fix")
    reads = [
        op("Read", json.dumps({"file_path": f"/work/app/src/m{i}.py"}), "x = 1\n" * 600)
        for i in range(MAX_OPERATIONS - 2)
    ]
    plan = planned(REQUEST, [commit, *reads, edit("/work/app/README.md")])
    assert plan.observations[0].category == "commit" and len(plan.observations) == MAX_OBSERVATIONS
    assert plan.omitted == MAX_OPERATIONS - MAX_OBSERVATIONS
    # Only the kept observations are cleaned (operation and output), and the resources stop
    # at their bound instead of looking up the checkout of every file read.
    assert len(cleaned) <= 2 * MAX_OBSERVATIONS
    assert len(looked_up) <= progress.MAX_RESOURCES + 1
