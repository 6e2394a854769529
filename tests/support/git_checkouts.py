"""Checkouts written by hand, as git lays them out, without running git."""

from __future__ import annotations

from pathlib import Path


def make_repo(root: Path, remote: str | None = None, remote_name: str = "origin") -> Path:
    """A checkout written by hand: ``.git/HEAD`` and a config with one remote."""
    git = root / ".git"
    git.mkdir(parents=True)
    (git / "HEAD").write_text("ref: refs/heads/main\n")
    config = "[core]\n\trepositoryformatversion = 0\n"
    if remote is not None:
        config += f'[remote "{remote_name}"]\n\turl = {remote}\n'
    (git / "config").write_text(config)
    return root


def add_worktree(repo: Path, worktree: Path, name: str = "wt") -> Path:
    """A linked worktree as git writes it: a ``.git`` file and ``commondir``."""
    admin = repo / ".git" / "worktrees" / name
    admin.mkdir(parents=True)
    (admin / "HEAD").write_text("ref: refs/heads/feature\n")
    (admin / "commondir").write_text("../..\n")
    worktree.mkdir(parents=True)
    (worktree / ".git").write_text(f"gitdir: {admin}\n")
    return worktree
