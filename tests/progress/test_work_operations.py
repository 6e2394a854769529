"""Reading what a tool call did from its name and input."""

from __future__ import annotations

import json

import pytest

from memory_core.capture.work.work_operations import read_command, read_operation


@pytest.mark.parametrize(
    ("command", "category"),
    [
        ('git commit -am "fix; tidy"', "commit"),
        ("cd /srv/app && git push origin main 2>&1", "push"),
        ("git -C /srv/app merge feature", "merge"),
        ("git pull --rebase", "merge"),
        ("gh pr create --fill", "push"),
        ("npm publish", "push"),
        ("python -m pytest -q", "test"),
        (".venv/bin/python -m pytest tests", "test"),
        ("FOO=1 uv run pytest -x", "test"),
        ("npm test", "test"),
        ("npm run lint", "test"),
        ("make test", "test"),
        ("cargo test", "test"),
        ("go vet ./...", "test"),
        ("make", "build"),
        ("npm run build", "build"),
        ("docker build -t x .", "build"),
        ("pip install -e '.[test]'", "install"),
        ("python -m pip install httpx", "install"),
        ("npm ci", "install"),
        ("./scripts/deploy.sh prod", "run"),
        ("python manage.py migrate", "run"),
        ("docker compose up -d", "run"),
        ("echo done > status.txt", "write"),
        ("mkdir -p build && cp a b", "write"),
        ("sed -i 's/a/b/' config.ini", "write"),
        ("git checkout -b topic", "git"),
        ("git add -A", "git"),
        ("ls -la", "inspect"),
        ("cat README.md | head -5", "inspect"),
        ("grep -rn TODO src", "inspect"),
        ("git status && git log --oneline -5 && git diff", "inspect"),
        ("echo hi 2>/dev/null", "inspect"),
        ("curl -s https://example.com/health", "inspect"),
        ("python --version", "inspect"),
        ("some-unknown-tool --flag", "inspect"),
        ("bash -lc 'git push'", "push"),
    ],
)
def test_shell_commands(command: str, category: str) -> None:
    assert read_command(command).category == category


@pytest.mark.parametrize(
    "command",
    [
        "memevo status",
        "memevo learning --json",
        "python -m cli evolve",
        "cd /x && memevo recall parser",
        "huey_consumer workers.main.huey",
    ],
)
def test_memevo_own_commands(command: str) -> None:
    assert read_command(command).own


def test_directories_named_in_commands() -> None:
    reading = read_command("cd /srv/app && git -C /srv/lib push && git --work-tree=/srv/docs add .")
    assert reading.directories == (("cd", "/srv/app"), ("git -C", "/srv/lib"), ("git -C", "/srv/docs"))


@pytest.mark.parametrize(
    ("tool", "data", "category"),
    [
        ("Write", {"file_path": "/a/b.py", "content": "x"}, "write"),
        ("Edit", {"file_path": "/a/b.py", "old_string": "x", "new_string": "y"}, "write"),
        ("MultiEdit", {"file_path": "/a/b.py", "edits": []}, "write"),
        ("NotebookEdit", {"notebook_path": "/a/n.ipynb"}, "write"),
        ("replace", {"file_path": "/a/b.py", "old_string": "x", "new_string": "y"}, "write"),  # Gemini CLI
        ("str_replace_based_edit_tool", {"command": "view", "path": "/a"}, "inspect"),
        ("Read", {"file_path": "/a/b.py"}, "inspect"),
        ("Grep", {"pattern": "x"}, "inspect"),
        ("TodoWrite", {"todos": []}, "inspect"),
        ("shell", {"command": ["bash", "-lc", "pytest -q"]}, "test"),
        ("exec_command", {"cmd": "git commit -m x", "workdir": "/repo"}, "commit"),
    ],
)
def test_tools(tool: str, data: dict, category: str) -> None:
    assert read_operation(tool, json.dumps(data)).category == category


def test_file_tools_name_their_files_even_when_the_input_was_clipped() -> None:
    clipped = '{"file_path": "/srv/app/x.py", "old_string": "' + "a" * 50
    assert read_operation("Edit", clipped).directories == (("file", "/srv/app/x.py"),)


@pytest.mark.parametrize("tool", ["memory_recall", "mcp__memevo__recall", "memevo"])
def test_memevo_tools_are_its_own(tool: str) -> None:
    assert read_operation(tool, "{}").own
