"""What the end-to-end tests of every agent share: the remembered fact, running the installed
``memevo`` as a user does, a runner whose hooks get the test's state dir, the consolidating
worker, and reading what the hooks left. The fixtures (binaries, fakes, HOME) are in conftest.py.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from tests.support.fake_model import FakeModelProcess, Reply
from tests.support.memevo_worker import MemevoWorker, claims, memevo_env, run_memevo, sources, wait_until
from tests.support.npm_cli import AgentRunner, command_line

STATEMENT = "Remember that the staging database listens on port 5433."
QUESTION = "Which port does the staging database listen on?"
CLAIM = "The staging database listens on port 5433."
DIGEST_OPEN = "<memevo-recall>"
CONSOLIDATION_WAIT = 45.0

# A hook script that appends its payload, one JSON line, to the file named by its argument.
RECORD_HOOK = """\
import json, sys
payload = json.loads(sys.stdin.read())
with open(sys.argv[1], "a", encoding="utf-8") as out:
    out.write(json.dumps(payload) + "\\n")
"""

# Where each agent would look for its settings instead of HOME: a user's memevo must not see them.
AGENT_DIRS = ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME")

RunnerT = TypeVar("RunnerT", bound=AgentRunner[Any])


def memevo_as_user(user_home: Path, state_dir: Path, *args: str, **extra: str) -> None:
    """The installed ``memevo ARGS`` as a person runs it, in ``user_home`` (the throwaway HOME,
    no agent settings dir of the test's environment, ``extra`` added); it must exit 0."""
    env = {k: v for k, v in memevo_env(state_dir, home=user_home).items() if k not in AGENT_DIRS}
    done = run_memevo(*args, env={**env, **extra}, cwd=user_home)
    assert done.returncode == 0, f"memevo {' '.join(args)} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}"


def agent_runner(
    runner: type[RunnerT], base_url: str, binary: Path, user_home: Path, cwd: Path, state_dir: Path, *, timeout: float
) -> RunnerT:
    """A ``runner`` against the fake at ``base_url``, in ``cwd``, whose hooks get ``MEMEVO_HOME=state_dir``."""
    return runner(
        base_url, home=user_home, cwd=cwd, binary=binary, env={"MEMEVO_HOME": str(state_dir)}, timeout=timeout
    )


def hook_commands(settings: dict[str, Any], event: str) -> list[str]:
    """Every command hook of ``event`` in a settings (or hooks) file."""
    return [h.get("command") for group in settings.get("hooks", {}).get(event, []) for h in group.get("hooks", [])]


def seed_claim(state_dir: Path, cwd: Path) -> None:
    """A labelled fact in a generic compaction summary becomes the claim :data:`CLAIM` at once,
    no worker needed."""
    seed = {
        "schema": "memevo.hook/v1",
        "event": "compaction",
        "session_id": "seed",
        "cwd": str(cwd),
        "summary": f"Fact: {CLAIM}",
    }
    done = run_memevo("hook", "compaction", input=json.dumps(seed), env=memevo_env(state_dir))
    assert done.returncode == 0 and [c["content"] for c in claims(state_dir, "active")] == [CLAIM], done.stderr


@contextmanager
def consolidating(
    tmp_path: Path, state_dir: Path, user_home: Path, claim: str, search_term: str
) -> Iterator[tuple[FakeModelProcess, MemevoWorker]]:
    """A real ``memevo worker`` whose loopback model turns the first source into the fact
    ``claim`` (and every later one into nothing)."""
    reply = Reply.of_claims([{"kind": "fact", "content": claim, "searchTerms": [search_term]}])
    with (
        FakeModelProcess(tmp_path, [reply], default="empty") as model,
        MemevoWorker(memevo_env(state_dir, home=user_home), model.base_url, log=tmp_path / "worker.log") as worker,
    ):
        yield model, worker


def captured_source(state_dir: Path, what: str, timeout: float = 10) -> dict[str, Any]:
    """The one source the hooks captured (waiting for it)."""
    [source] = wait_until(lambda: sources(state_dir), timeout, what, describe=lambda: hook_log(state_dir))
    return source


def captured_statement(
    state_dir: Path, what: str, origin: Path, session_id: str | None, timeout: float = 10
) -> dict[str, Any]:
    """The one source the hooks captured: :data:`STATEMENT`, said in session ``session_id`` in ``origin``."""
    source = captured_source(state_dir, what, timeout)
    assert source["source_type"] == "user_statement", source
    assert source["origin"] == str(origin.resolve()), source
    assert (source["body"]["text"], source["body"]["session_id"]) == (STATEMENT, session_id), source
    return source


def consolidated_claim(state_dir: Path, worker: MemevoWorker, content: str) -> dict[str, Any]:
    """The active claim saying ``content``, once the worker has made it."""

    def active_claim() -> list[dict[str, Any]]:
        return [c for c in claims(state_dir, "active") if c["content"] == content]

    [claim] = wait_until(
        active_claim,
        CONSOLIDATION_WAIT,
        "the worker to consolidate the statement",
        describe=lambda: f"sources: {sources(state_dir)}\nclaims: {claims(state_dir)}\n{worker.output()}",
    )
    return claim


def learned_claim(
    state_dir: Path, worker: MemevoWorker, model: FakeModelProcess, source: dict[str, Any], origin: Path
) -> dict[str, Any]:
    """The claim :data:`CLAIM` the worker made of the statement ``source`` (learned in ``origin``),
    in one consolidation request that showed the model the statement."""
    claim = consolidated_claim(state_dir, worker, CLAIM)
    assert claim["origin"] == str(origin.resolve()) and claim["source_id"] == source["id"]
    [consolidation] = model.requests()
    assert "staging database listens on port 5433" in json.dumps(consolidation["messages"])
    return claim


def unusable_state_dir(tmp_path: Path, layout: str = "home_is_a_file") -> tuple[Path, Path]:
    """A file where the state dir should be, and the state dir it makes unusable: the file
    itself (``home_is_a_file``) or a directory under it (``home_under_a_file``)."""
    blocker = tmp_path / "state-is-a-file"
    blocker.write_text("not a directory\n", encoding="utf-8")
    return blocker, blocker if layout == "home_is_a_file" else blocker / "memevo"


def hook_log(state_dir: Path) -> str:
    """The end of the hooks' error log (for a failure's message)."""
    log = state_dir / "logs" / "hooks.log"
    return log.read_text(encoding="utf-8", errors="replace")[-3000:] if log.is_file() else "(no hooks.log)"


def assert_no_hook_errors(state_dir: Path) -> None:
    assert not (state_dir / "logs" / "hooks.log").exists(), hook_log(state_dir)


def recording_hook(tmp_path: Path, out: Path) -> str:
    """The command line of :data:`RECORD_HOOK` (written to ``tmp_path/record.py``) appending to ``out``."""
    script = tmp_path / "record.py"
    script.write_text(RECORD_HOOK, encoding="utf-8")
    return command_line(sys.executable, script, out)


def records(path: Path) -> list[dict[str, Any]]:
    """The JSON lines :data:`RECORD_HOOK` appended to ``path`` (none if it never ran)."""
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    return done.stdout


def make_widget_repo(path: Path) -> Path:
    """A git repository with one commit, an uncommitted fix to ``parser.py`` and an unreachable
    ``origin``."""
    path.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", "-b", "main", str(path)], check=True, timeout=30)
    for key, value in (("user.email", "dev@example.invalid"), ("user.name", "Dev"), ("commit.gpgsign", "false")):
        git(path, "config", key, value)
    (path / "parser.py").write_text("def parse(text):\n    return text.split()\n", encoding="utf-8")
    git(path, "add", "parser.py")
    git(path, "commit", "-q", "-m", "Start the parser")
    git(path, "remote", "add", "origin", "file:///nonexistent/widget.git")
    (path / "parser.py").write_text("def parse(text):\n    return text.strip().split()\n", encoding="utf-8")
    return path
