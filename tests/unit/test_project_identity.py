"""A capture's project: normalized remotes, checkouts read from ``.git``, explicit names."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from memory_core.capture.intake import canonical_origin
from memory_core.project import (
    find_checkout,
    normalize_remote,
    override_for,
    remote_urls,
    resolve_project,
)
from tests.support.git_checkouts import add_worktree, make_repo

SHOP = "github.com/acme/shop"


@pytest.mark.parametrize(
    "url",
    [
        "git@github.com:acme/shop.git",
        "git@github.com:acme/shop",
        "https://github.com/acme/shop",
        "https://github.com/acme/shop.git",
        "https://github.com/acme/shop/",
        "https://github.com/acme/shop.git/",
        "ssh://git@github.com/acme/shop",
        "ssh://git@github.com:22/acme/shop.git",
        "ssh://git@GitHub.COM/Acme/Shop",
        "https://alice:ghp_secret@github.com/acme/shop",
        "git+ssh://git@github.com/acme/shop.git",
        "git://github.com/acme/shop",
        "  git@github.com:acme/shop.git\n",
    ],
)
def test_every_form_of_one_remote_is_one_project(url: str) -> None:
    assert normalize_remote(url) == SHOP


def test_path_case_is_kept_on_other_hosts_and_user_port_dropped() -> None:
    assert normalize_remote("https://bob:pw@Git.Example.com:8443/Team/Sub/Repo.git") == "git.example.com/Team/Sub/Repo"
    assert normalize_remote("ssh://git@[::1]:2222/srv/repo") == "[::1]/srv/repo"


@pytest.mark.parametrize(
    "url",
    [
        "",
        "   ",
        "/srv/git/shop.git",
        "./shop",
        "../shop.git",
        "file:///srv/git/shop.git",
        "C:/repos/shop",
        "git@github.com:",
        "https://",
        "https://github.com",
        "git@github.com:../../etc",
        "https://github.com/acme/sh op",
        "ssh://git@github.com:notaport/acme/shop",
        "https://exa mple.com/x",
        "gopher://github.com/acme/shop",
        "https://-bad-.com/acme/shop",
    ],
)
def test_local_paths_and_malformed_remotes_name_no_project(url: str) -> None:
    assert normalize_remote(url) is None


def test_remote_urls_read_git_config_syntax() -> None:
    text = (
        "[core]\n\tbare = false\n"
        '[remote "upstream"]\n\turl = git@github.com:up/shop.git ; a comment\n'
        '[Remote "origin"]\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n'
        '\tURL = "https://github.com/acme/shop" # quoted\n'
        "\turl = https://mirror.example.com/shop\n"
        '[branch "main"]\n\turl = nope\n'
    )
    assert remote_urls(text) == {"upstream": "git@github.com:up/shop.git", "origin": "https://github.com/acme/shop"}


def test_subdirectories_and_worktrees_are_the_repository(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "shop", "git@github.com:acme/shop.git")
    (repo / "src" / "deep").mkdir(parents=True)
    worktree = add_worktree(repo, tmp_path / "shop-feature")
    (worktree / "docs").mkdir()
    for directory in (repo, repo / "src" / "deep", worktree, worktree / "docs"):
        assert resolve_project(str(directory)).origin == SHOP, directory
    project = resolve_project(str(worktree / "docs"))
    assert project.roots == (str(worktree / "docs"), str(worktree), str(repo))


def test_first_remote_when_there_is_no_origin(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", "https://gitlab.com/Team/Tool.git", remote_name="upstream")
    assert resolve_project(str(repo)).origin == "gitlab.com/team/tool"


def test_a_checkout_without_a_usable_remote_keeps_its_main_root(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "local")
    (repo / "sub").mkdir()
    worktree = add_worktree(repo, tmp_path / "local-wt")
    assert resolve_project(str(repo / "sub")).origin == str(repo)
    assert resolve_project(str(worktree)).origin == str(repo)
    odd = make_repo(tmp_path / "odd", "not a url at all")
    assert resolve_project(str(odd)).origin == str(odd)


def test_submodule_is_its_own_project(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "app", "git@github.com:acme/app.git")
    modules = repo / ".git" / "modules" / "lib"
    modules.mkdir(parents=True)
    (modules / "HEAD").write_text("ref: refs/heads/main\n")
    (modules / "config").write_text('[remote "origin"]\n\turl = https://github.com/acme/lib\n')
    (repo / "lib").mkdir()
    (repo / "lib" / ".git").write_text("gitdir: ../.git/modules/lib\n")
    assert resolve_project(str(repo / "lib")).origin == "github.com/acme/lib"
    assert resolve_project(str(repo)).origin == "github.com/acme/app"


def test_bad_git_entries_fall_back_to_the_directory(tmp_path: Path) -> None:
    nowhere = tmp_path / "nowhere"
    nowhere.mkdir()
    (nowhere / ".git").write_text(f"gitdir: {tmp_path / 'missing'}\n")
    garbage = tmp_path / "garbage"
    garbage.mkdir()
    (garbage / ".git").write_bytes(b"\xff\xfe not a gitdir line")
    empty_dir = tmp_path / "emptygit"
    (empty_dir / ".git").mkdir(parents=True)
    for directory in (nowhere, garbage, empty_dir):
        assert find_checkout(str(directory)) is None
        assert resolve_project(str(directory)).origin == str(directory)
    assert resolve_project(str(tmp_path / "gone" / "away")).origin == str(tmp_path / "gone" / "away")


def test_unreadable_config_falls_back_to_the_checkout_root(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "locked", "git@github.com:acme/shop.git")
    config = repo / ".git" / "config"
    config.unlink()
    config.mkdir()  # reading it fails, for root too
    assert resolve_project(str(repo)).origin == str(repo)
    config.rmdir()
    config.write_bytes(b'[remote "origin"]\n\turl = \xff\xfe\x00\n')
    assert resolve_project(str(repo)).origin == str(repo)


def test_symlinked_directory_resolves_like_its_target(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "shop", "git@github.com:acme/shop.git")
    link = tmp_path / "link"
    link.symlink_to(repo)
    assert resolve_project(str(link)).origin == SHOP


GIT = shutil.which("git")


@pytest.mark.skipif(GIT is None, reason="git is not installed")
def test_real_git_checkouts_and_worktrees(tmp_path: Path) -> None:
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_SYSTEM": os.devnull}

    def git(*args: str, cwd: Path) -> None:
        subprocess.run([str(GIT), *args], cwd=cwd, env=env, check=True, capture_output=True, timeout=30)

    alice, bob = tmp_path / "home" / "alice" / "shop", tmp_path / "Users" / "bob" / "code" / "shop"
    for path, url in ((alice, "git@github.com:acme/shop.git"), (bob, "https://github.com/acme/shop")):
        path.mkdir(parents=True)
        git("init", "-q", cwd=path)
        git("remote", "add", "origin", url, cwd=path)
    git("-c", "user.email=a@example.com", "-c", "user.name=a", "commit", "-q", "--allow-empty", "-m", "x", cwd=alice)
    git("worktree", "add", "-q", str(tmp_path / "wt"), cwd=alice)
    (alice / "pkg").mkdir()
    for directory in (alice, alice / "pkg", bob, tmp_path / "wt"):
        assert resolve_project(str(directory)).origin == SHOP, directory
    git("remote", "remove", "origin", cwd=alice)
    assert resolve_project(str(tmp_path / "wt")).origin == str(alice)


def test_explicit_names_win_longest_path_first(tmp_path: Path, home: Path) -> None:
    repo = make_repo(tmp_path / "mono", "git@github.com:acme/mono.git")
    (repo / "services" / "billing").mkdir(parents=True)
    table = {str(repo): "acme-mono", str(repo / "services" / "billing"): "acme-billing", "  ": "x"}
    assert override_for(str(repo / "services" / "billing" / "api"), table) == "acme-billing"
    assert override_for(str(repo / "docs"), table) == "acme-mono"
    assert override_for(str(tmp_path), table) is None
    assert override_for(str(tmp_path), "  team-x ") == "team-x"
    assert override_for(str(tmp_path), {str(tmp_path): "\x00bad"}) is None

    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(f'[project]\n"{repo / "services" / "billing"}" = "acme-billing"\n')
    billing = repo / "services" / "billing"
    assert canonical_origin(str(billing), home) == "acme-billing"
    assert canonical_origin(str(repo), home) == "github.com/acme/mono"
    assert resolve_project(str(billing), home, {"MEMEVO_PROJECT": " everything "}).origin == "everything"
    assert resolve_project(str(billing), home, {"MEMEVO_PROJECT": "\x07"}).origin == "acme-billing"
    (home / "config.toml").write_text("project = [1, 2\n")  # unreadable TOML names nothing here
    assert canonical_origin(str(billing), home) == "github.com/acme/mono"


def test_no_directory_is_unknown() -> None:
    assert canonical_origin("") == "unknown"
