"""`memevo exclude` / `memevo include` edit the exclude setting; `memevo status` says when here is excluded."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from memory_core.controls.exclusion_edit import as_glob, exclude_directory, include_directory
from memory_core.errors import ConfigError


def test_paths_are_stored_absolute_and_tilde_globs_as_typed(tmp_path: Path) -> None:
    assert as_glob(".", str(tmp_path)) == str(tmp_path.resolve())
    assert as_glob("sub/", "/work") == "/work/sub"
    assert as_glob("client-*", "/work") == "/work/client-*"
    assert as_glob("~/secret/", "/work") == "~/secret"


def test_exclude_then_include_edits_only_that_line(home: Path) -> None:
    home.mkdir(parents=True, exist_ok=True)
    config = home / "config.toml"
    config.write_text('# mine\nstanding_digest = "off"\n\n[project]\n"/w" = "w"\n', encoding="utf-8")
    first = exclude_directory(home, "/work/secret", "/", env={})
    assert first["changed"] and first["exclude"] == ["/work/secret"] and first["in_force"] == ["/work/secret"]
    again = exclude_directory(home, "/work/secret/", "/", env={})
    assert not again["changed"]
    exclude_directory(home, "~/clients/*", "/", env={})
    data = tomllib.loads(config.read_text(encoding="utf-8"))
    assert data["exclude"] == ["/work/secret", "~/clients/*"] and data["project"] == {"/w": "w"}
    assert config.read_text(encoding="utf-8").startswith('# mine\nstanding_digest = "off"\n')
    removed = include_directory(home, "/work/secret", "/", env={})
    assert removed["changed"] and removed["exclude"] == ["~/clients/*"] and removed["excluded_by"] is None
    assert (config.stat().st_mode & 0o777) == 0o600


def test_include_says_which_glob_still_excludes(home: Path) -> None:
    exclude_directory(home, "/work/*", "/", env={})
    result = include_directory(home, "/work/app", "/", env={})
    assert not result["changed"] and result["excluded_by"] == "/work/*"


def test_a_hand_written_multi_line_value_is_not_broken(home: Path) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text('exclude = [\n  "/a",\n]\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="by hand"):
        exclude_directory(home, "/b", "/", env={})
    assert (home / "config.toml").read_text(encoding="utf-8") == 'exclude = [\n  "/a",\n]\n'


def test_the_commands_and_status(home: Path, cli_run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    here = tmp_path / "work" / "secret"
    here.mkdir(parents=True)
    monkeypatch.chdir(here)
    result = cli_run("exclude", ".", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["exclude"] == [str(here.resolve())]
    status = cli_run("status", "--json")
    assert json.loads(status.output)["scope"]["excluded_here"] == str(here.resolve())
    assert "this directory is excluded" in cli_run("status").output
    result = cli_run("include", ".")
    assert result.exit_code == 0 and "included" in result.output
    assert json.loads(cli_run("status", "--json").output)["scope"]["excluded_here"] is None
