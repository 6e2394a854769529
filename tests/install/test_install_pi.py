"""`memevo install pi` / `memevo uninstall pi` and doctor's Pi check: memevo's extension file."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cli.install import pi
from cli.install.check import agent_checks
from tests.install.support import INSTALLED_MEMEVO, ClaudeSandbox, backups, mtime_ns, run
from tests.support.processes import REPO

COMMAND = f"{INSTALLED_MEMEVO} hook --agent pi"


@pytest.fixture
def agent_dir(claude: ClaudeSandbox, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``PI_CODING_AGENT_DIR`` inside the sandbox HOME (the conftest sandbox sets HOME and the cwd)."""
    path = claude.home / "pi-agent"
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(path))
    return path


def user_file(agent_dir: Path) -> Path:
    return agent_dir / "extensions" / "memevo.ts"


def rendered() -> str:
    return pi.render([str(INSTALLED_MEMEVO)])


def test_install_writes_the_template_with_this_memevo_s_absolute_path(agent_dir: Path) -> None:
    result = run("install", "pi")
    assert result.exit_code == 0, result.output
    assert f"Each event runs: {COMMAND}" in result.output and "memevo doctor" in result.output
    text = user_file(agent_dir).read_text(encoding="utf-8")
    assert text == rendered()
    # Only the launcher line differs from the shipped template.
    changed = [(a, b) for a, b in zip(pi.template().splitlines(), text.splitlines(), strict=True) if a != b]
    assert changed == [
        (
            'const MEMEVO_COMMAND: string[] = ["memevo"]; // memevo:command (the absolute path, written at install)',
            f"const MEMEVO_COMMAND: string[] = {json.dumps([str(INSTALLED_MEMEVO)])}; "
            "// memevo:command (the absolute path, written at install)",
        )
    ]
    assert pi.launcher_of(text) == [str(INSTALLED_MEMEVO)]


def test_user_scope_follows_pi_s_agent_dir(claude: ClaudeSandbox, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PI_CODING_AGENT_DIR", raising=False)
    assert run("install", "pi", "--scope", "user").exit_code == 0
    assert (claude.home / ".pi" / "agent" / "extensions" / "memevo.ts").read_text(encoding="utf-8") == rendered()
    env = {"HOME": str(claude.home), "PI_CODING_AGENT_DIR": "~/elsewhere"}
    assert pi.extension_path("user", claude.project, env) == claude.home / "elsewhere" / "extensions" / "memevo.ts"


def test_install_is_idempotent(agent_dir: Path) -> None:
    assert run("install", "pi").exit_code == 0
    before = mtime_ns(user_file(agent_dir))
    again = run("install", "pi")
    assert again.exit_code == 0 and "nothing changed" in again.output
    assert mtime_ns(user_file(agent_dir)) == before
    assert backups(user_file(agent_dir)) == []
    data = json.loads(run("install", "pi", "--json").output)
    assert (data["action"], data["changed"], data["written"], data["backup"]) == ("unchanged", False, False, None)


def test_dry_run_prints_the_change_and_writes_nothing(agent_dir: Path) -> None:
    result = run("install", "pi", "--dry-run")
    assert result.exit_code == 0
    assert result.output.startswith(f"--- /dev/null\n+++ {user_file(agent_dir)}\n")
    assert f"+const MEMEVO_COMMAND: string[] = {json.dumps([str(INSTALLED_MEMEVO)])};" in result.output
    assert "(dry run: nothing was written)" in result.output
    assert not user_file(agent_dir).exists()
    run("install", "pi")
    removal = run("uninstall", "pi", "--dry-run")
    assert f"--- {user_file(agent_dir)}\n+++ /dev/null\n" in removal.output
    assert user_file(agent_dir).read_text(encoding="utf-8") == rendered()


def test_a_moved_memevo_is_updated_in_place_without_a_backup(agent_dir: Path) -> None:
    file = user_file(agent_dir)
    file.parent.mkdir(parents=True)
    file.write_text(pi.render(["/old/venv/bin/memevo"]), encoding="utf-8")
    os.chmod(file, 0o640)
    result = run("install", "pi", "--json")
    data = json.loads(result.output)
    assert (data["action"], data["backup"]) == ("updated", None)
    assert file.read_text(encoding="utf-8") == rendered()
    assert oct(file.stat().st_mode & 0o777) == oct(0o640)
    assert backups(file) == []


def test_an_edited_extension_is_backed_up_before_it_is_replaced(agent_dir: Path) -> None:
    file = user_file(agent_dir)
    run("install", "pi")
    edited = rendered().replace("RECALL_LIMIT_MS = 3_000", "RECALL_LIMIT_MS = 9_000")
    file.write_text(edited, encoding="utf-8")
    result = run("install", "pi")
    assert result.exit_code == 0 and "Backup of the previous file" in result.output
    [backup] = backups(file)
    assert backup.read_text(encoding="utf-8") == edited and not backup.name.endswith(".ts")  # Pi never loads it
    assert file.read_text(encoding="utf-8") == rendered()


def test_someone_else_s_file_is_never_touched(agent_dir: Path) -> None:
    file = user_file(agent_dir)
    file.parent.mkdir(parents=True)
    file.write_text("export default function (pi) {}\n", encoding="utf-8")
    refused = run("install", "pi")
    assert refused.exit_code == 1 and "is not memevo's Pi extension" in refused.output
    removed = run("uninstall", "pi")
    assert removed.exit_code == 0 and "nothing changed" in removed.output
    assert file.read_text(encoding="utf-8") == "export default function (pi) {}\n"


def test_uninstall_removes_exactly_memevo_s_file(agent_dir: Path) -> None:
    file = user_file(agent_dir)
    run("install", "pi")
    other = file.parent / "mine.ts"
    other.write_text("export default function (pi) {}\n", encoding="utf-8")
    result = run("uninstall", "pi")
    assert result.exit_code == 0 and "Removed memevo's Pi hooks" in result.output
    assert not file.exists() and backups(file) == []  # memevo can render a pristine file again
    assert sorted(p.name for p in file.parent.iterdir()) == ["mine.ts"]
    again = run("uninstall", "pi")
    assert again.exit_code == 0 and "nothing changed" in again.output


def test_uninstall_keeps_an_edited_extension_as_a_backup(agent_dir: Path) -> None:
    file = user_file(agent_dir)
    run("install", "pi")
    edited = rendered() + "// my note\n"
    file.write_text(edited, encoding="utf-8")
    data = json.loads(run("uninstall", "pi", "--json").output)
    assert data["action"] == "removed" and data["backup"]
    assert not file.exists()
    assert Path(data["backup"]).read_text(encoding="utf-8") == edited


def test_a_symlinked_extension_is_written_through_and_unlinked(agent_dir: Path, tmp_path: Path) -> None:
    dotfiles = tmp_path / "dotfiles" / "memevo.ts"
    dotfiles.parent.mkdir()
    dotfiles.write_text(pi.render(["/old/memevo"]), encoding="utf-8")
    file = user_file(agent_dir)
    file.parent.mkdir(parents=True)
    file.symlink_to(dotfiles)
    assert run("install", "pi").exit_code == 0
    assert file.is_symlink() and dotfiles.read_text(encoding="utf-8") == rendered()
    assert run("uninstall", "pi").exit_code == 0
    assert not file.exists() and not file.is_symlink() and dotfiles.exists()


def test_project_scope(claude: ClaudeSandbox, tmp_path: Path) -> None:
    assert run("install", "pi", "--scope", "project").exit_code == 0
    assert (claude.project / ".pi" / "extensions" / "memevo.ts").read_text(encoding="utf-8") == rendered()
    other = tmp_path / "other-project"
    other.mkdir()
    assert run("install", "pi", "--scope", "project", "--project-dir", str(other)).exit_code == 0
    assert (other / ".pi" / "extensions" / "memevo.ts").exists()


def test_pi_has_no_local_scope(agent_dir: Path) -> None:
    result = run("install", "pi", "--scope", "local")
    assert result.exit_code != 0 and "Pi has no 'local' scope" in result.output


def checks(claude: ClaudeSandbox) -> list[dict]:
    return agent_checks(pi.TARGET, claude.project, dict(os.environ))


def test_doctor_reports_missing_installed_stale_and_broken(
    claude: ClaudeSandbox, agent_dir: Path, tmp_path: Path
) -> None:
    [missing] = checks(claude)
    assert (missing["status"], missing["details"]["installed"]) == ("ok", False)
    assert "memevo install pi" in missing["summary"]
    run("install", "pi")
    [ok] = checks(claude)
    assert ok["status"] == "ok" and COMMAND in ok["summary"]
    file = user_file(agent_dir)
    file.write_text(rendered() + "// edited\n", encoding="utf-8")
    [stale] = checks(claude)
    assert stale["status"] == "warn" and "stale" in stale["summary"]
    assert stale["fix"] == "memevo install pi --scope user"
    venv = tmp_path / "gone-venv" / "bin"
    venv.mkdir(parents=True)
    (venv / "memevo").write_text("#!/nonexistent/python\n", encoding="utf-8")
    os.chmod(venv / "memevo", 0o755)
    file.write_text(pi.render([str(venv / "memevo")]), encoding="utf-8")
    [broken] = checks(claude)
    assert broken["status"] == "error" and "/nonexistent/python, which does not exist" in broken["summary"]
    shutil.rmtree(tmp_path / "gone-venv")
    [gone] = checks(claude)
    assert gone["status"] == "error" and "does not exist" in gone["summary"]


def test_doctor_warns_about_two_scopes_and_foreign_files(claude: ClaudeSandbox, agent_dir: Path) -> None:
    run("install", "pi")
    run("install", "pi", "--scope", "project")
    [twice] = checks(claude)
    assert twice["status"] == "warn" and "user and project" in twice["summary"]
    assert twice["fix"] == "memevo uninstall pi --scope project"
    run("uninstall", "pi")
    (user_file(agent_dir)).write_text("// not memevo's\n", encoding="utf-8")
    statuses = sorted((c["status"], c["summary"]) for c in checks(claude))
    assert [s for s, _ in statuses] == ["ok", "warn"] and "is not memevo's Pi extension" in statuses[1][1]


def test_doctor_command_lists_the_pi_check(agent_dir: Path) -> None:
    run("install", "pi")
    report = json.loads(run("doctor", "--json").output)
    [check] = [c for c in report["checks"] if c["name"] == "pi"]
    assert check["status"] == "ok"


def test_render_escapes_any_path_into_a_valid_string_literal() -> None:
    launcher = ['/home/j "q"/naïve dir/python', "-m", "cli"]
    text = pi.render(launcher)
    assert pi.launcher_of(text) == launcher
    [line] = [ln for ln in text.splitlines() if ln.startswith("const MEMEVO_COMMAND")]
    assert line.isascii() and "na\\u00efve" in line  # JSON escapes are TypeScript escapes too
    assert pi.launcher_of('const MEMEVO_COMMAND: string[] = ["x"]; // memevo:command') is None  # no marker


def test_the_extension_ships_as_package_data(tmp_path: Path) -> None:
    """What setuptools builds from pyproject.toml (as ``pip install`` does) holds memevo.ts."""
    source = tmp_path / "src"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(REPO / name, source / name)
    for package in ("cli", "memory_core", "workers"):
        shutil.copytree(REPO / package, source / package, ignore=shutil.ignore_patterns("__pycache__"))
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "from setuptools import setup; setup()",
            "-q",
            "build_py",
            "--build-lib",
            str(tmp_path / "lib"),
        ],
        cwd=source,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    built = tmp_path / "lib" / "cli" / "install" / "pi_extension" / "memevo.ts"
    assert built.read_text(encoding="utf-8") == pi.template()
