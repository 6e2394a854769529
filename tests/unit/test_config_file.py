"""config.toml as the hooks read it: once per process while unchanged, parsed only when it
names the setting asked for, read again once it changes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from memory_core import config_file


def test_absent_unnamed_and_named(tmp_path: Path) -> None:
    assert config_file.config_bytes(tmp_path) is None and config_file.config_data(tmp_path, "project") is None
    (tmp_path / "config.toml").write_text('model = "m"\n')
    assert config_file.config_data(tmp_path, "project") is None  # not parsed: it names no project
    (tmp_path / "config.toml").write_text('project = "shop"\n')
    assert config_file.config_data(tmp_path, "project") == {"project": "shop"}


def test_a_changed_file_is_read_again(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('project = "one"\n')
    assert config_file.config_data(tmp_path, "project") == {"project": "one"}
    path.write_text('project = "second"\n')
    os.utime(path, ns=(1, 10**18))  # a new stamp even within the clock's resolution
    assert config_file.config_data(tmp_path, "project") == {"project": "second"}


def test_what_cannot_be_read_is_raised_for_the_caller(tmp_path: Path) -> None:
    (tmp_path / "config.toml").write_bytes(b'project = "\xff"\n')
    with pytest.raises(UnicodeDecodeError):
        config_file.config_data(tmp_path, "project")
    (tmp_path / "config.toml").write_text("project = [\n")
    os.utime(tmp_path / "config.toml", ns=(1, 2 * 10**18))
    with pytest.raises(ValueError):  # tomllib.TOMLDecodeError
        config_file.config_data(tmp_path, "project")
