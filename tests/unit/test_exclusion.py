"""The ``exclude`` setting: which working directories memevo never reads (memory_core.privacy.exclusion)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from memory_core.config import load_settings
from memory_core.errors import ConfigError
from memory_core.privacy.exclusion import excluded_by, excluding_glob, parse_exclude


@pytest.mark.parametrize(
    ("cwd", "globs", "expected"),
    [
        ("/work/secret", ("/work/secret",), "/work/secret"),
        ("/work/secret/sub/dir", ("/work/secret/",), "/work/secret/"),
        ("/work/secretive", ("/work/secret",), None),
        ("/work/client-acme/app", ("/work/client-*",), "/work/client-*"),
        ("/work/other", ("/work/client-*",), None),
        ("/work/a", ("relative/dir",), None),
        ("/work/a", (), None),
        ("", ("/work",), None),
        ("/anything", ("/",), "/"),
    ],
)
def test_a_directory_under_a_glob_is_excluded(cwd: str, globs: tuple[str, ...], expected: str | None) -> None:
    assert excluded_by(cwd, globs) == expected


def test_tilde_is_expanded(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    assert excluded_by(str(tmp_path / "private" / "x"), ("~/private",)) == "~/private"


def test_a_symbolic_link_into_an_excluded_directory_is_excluded(tmp_path: Path) -> None:
    real = tmp_path / "secret"
    real.mkdir()
    link = tmp_path / "link"
    link.symlink_to(real)
    assert excluded_by(str(link), (str(real),)) == str(real)


def test_parse_accepts_a_list_or_a_path_separated_string() -> None:
    assert parse_exclude(["/a", " /b ", "", "/a"]) == ("/a", "/b")
    assert parse_exclude(f"/a{os.pathsep}~/b") == ("/a", "~/b")
    assert parse_exclude(None) == ()
    with pytest.raises(ValueError, match="list of directory globs"):
        parse_exclude(5)
    with pytest.raises(ValueError, match="list of directory globs"):
        parse_exclude(["/a", 3])


def test_the_environment_wins_over_the_file(home: Path) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text('exclude = ["/from/file"]\n', encoding="utf-8")
    assert excluding_glob("/from/file/x", home, env={}) == "/from/file"
    assert excluding_glob("/from/file/x", home, env={"MEMEVO_EXCLUDE": "/from/env"}) is None
    assert excluding_glob("/from/env/x", home, env={"MEMEVO_EXCLUDE": "/from/env"}) == "/from/env"


def test_an_unreadable_file_excludes_nothing_in_hooks_and_the_settings_say_so(home: Path) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text("exclude = 5\n", encoding="utf-8")
    assert excluding_glob("/x", home, env={}) is None
    with pytest.raises(ConfigError, match="exclude"):
        load_settings({"MEMEVO_HOME": str(home)})


def test_the_settings_read_it_as_the_hooks_do(home: Path) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text('exclude = ["~/secret", "/work/client-*"]\n', encoding="utf-8")
    assert load_settings({"MEMEVO_HOME": str(home)}).exclude == ("~/secret", "/work/client-*")
    env = {"MEMEVO_HOME": str(home), "MEMEVO_EXCLUDE": "/only"}
    assert load_settings(env).exclude == ("/only",)
    assert load_settings(env).describe()["exclude"] == ["/only"]
