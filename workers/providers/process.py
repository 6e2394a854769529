"""One run of an agent's CLI for one model call, bounded by memevo, not by the CLI.

The CLI starts in a session of its own, so it and everything it starts form one process
group. At the attempt's deadline, or as soon as its output passes the cap, the whole group
is killed; after a normal exit the group is killed too (a child it left behind must not run
on), while the exited leader is still unreaped, so its group id cannot have been reused.

The prompt goes on stdin (argv is visible to every user in ``ps``). The CLI's stderr goes
nowhere: it can quote the prompt, and failures are stored as allowlisted codes only. The
CLI runs in a fresh, private, empty directory (its working directory: no project files,
no context file of a repository), removed afterwards with anything the CLI left in it.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import signal
import stat
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from memory_core.model_providers import MODEL_CALL_MARKER
from memory_core.records import ErrorCode, Reason
from workers.model_call import ModelCallError
from workers.model_client import RESPONSE_MAX_BYTES

READ_CHUNK = 65_536


@dataclass(frozen=True)
class CliResult:
    """What a finished CLI left: its exit status and its stdout (at most the cap)."""

    returncode: int
    stdout: bytes
    seconds: float


@contextlib.contextmanager
def call_directory() -> Iterator[Path]:
    """A private empty directory for one call, removed afterwards."""
    path = Path(tempfile.mkdtemp(prefix="memevo-model-call-"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


@contextlib.contextmanager
def shared_call_directory(name: str, seconds: float) -> Iterator[tuple[Path, Path]]:
    """For a CLI that registers every directory it runs in (Gemini CLI keeps a project entry
    per working directory): one private directory per user and CLI, reused by every call
    and held by one call at a time (waiting at most ``seconds``). Yields the working
    directory, always empty, and a directory for the call's files, emptied afterwards."""
    root = Path(tempfile.gettempdir()) / f"memevo-{os.getuid()}-{name}"
    with contextlib.suppress(FileExistsError):
        root.mkdir(mode=0o700)
    info = root.lstat()
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
        # Someone else's directory (or a link) where ours should be: never run in it.
        raise ModelCallError(
            ErrorCode.UNAVAILABLE, f"{root} is not a private directory of this user", reason=Reason.CLI_ERROR
        )
    os.chmod(root, 0o700)
    with open(root / ".lock", "a+b") as lock:
        deadline = time.monotonic() + seconds
        while True:
            try:
                fcntl.flock(lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise ModelCallError(ErrorCode.TIMEOUT, reason=Reason.DEADLINE) from None
                time.sleep(0.05)
        work, files = root / "memevo-model-call", root / "files"
        for path in (work, files):
            shutil.rmtree(path, ignore_errors=True)
            path.mkdir(mode=0o700)
        try:
            yield work, files
        finally:
            for path in (work, files):
                shutil.rmtree(path, ignore_errors=True)


def cli_environment(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The worker's environment for the CLI (its login lives where the CLI keeps it) without
    memevo's own settings (a database URL may hold a password), with the marker that makes
    every memevo hook return at once, plus ``extra``."""
    env = {name: value for name, value in os.environ.items() if not name.startswith("MEMEVO_")}
    env[MODEL_CALL_MARKER] = "1"
    env.update(extra or {})
    return env


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def run_cli(
    argv: Sequence[str],
    *,
    stdin_text: str,
    env: Mapping[str, str],
    cwd: Path,
    seconds: float,
    max_bytes: int = RESPONSE_MAX_BYTES,
) -> CliResult:
    """Run ``argv`` and wait at most ``seconds``; raise :class:`ModelCallError` on a CLI that
    cannot start (``unavailable``/``cli_missing``), the deadline (``timeout``) or output past
    ``max_bytes`` (``provider``/``response_too_large``). Nothing of the group outlives it."""
    started = time.monotonic()
    deadline = started + seconds
    try:
        process = subprocess.Popen(
            list(argv),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            cwd=str(cwd),
            env=dict(env),
            start_new_session=True,
            close_fds=True,
        )
    except OSError:
        raise ModelCallError(
            ErrorCode.UNAVAILABLE, "the agent's CLI could not be started", reason=Reason.CLI_MISSING
        ) from None
    assert process.stdin is not None and process.stdout is not None
    chunks: list[bytes] = []
    state = {"size": 0, "too_large": False}
    exited = threading.Event()

    def feed() -> None:
        with contextlib.suppress(OSError, ValueError):
            assert process.stdin is not None
            process.stdin.write(stdin_text.encode("utf-8", "replace"))
        with contextlib.suppress(OSError, ValueError):
            assert process.stdin is not None
            process.stdin.close()

    def drain() -> None:
        assert process.stdout is not None
        fd = process.stdout.fileno()
        while True:
            try:
                chunk = os.read(fd, READ_CHUNK)
            except OSError:
                return
            if not chunk:
                return
            state["size"] += len(chunk)
            if state["size"] > max_bytes:
                state["too_large"] = True
                _kill_group(process.pid)
                return
            chunks.append(chunk)

    def wait_exit() -> None:
        # WNOWAIT: the leader stays a zombie, so its group id stays ours until it is reaped.
        with contextlib.suppress(ChildProcessError, OSError):
            os.waitid(os.P_PID, process.pid, os.WEXITED | os.WNOWAIT)
        exited.set()

    threads = [
        threading.Thread(target=feed, name="memevo-cli-stdin", daemon=True),
        threading.Thread(target=drain, name="memevo-cli-stdout", daemon=True),
        threading.Thread(target=wait_exit, name="memevo-cli-exit", daemon=True),
    ]
    for thread in threads:
        thread.start()
    try:
        finished = exited.wait(max(0.0, deadline - time.monotonic()))
        _kill_group(process.pid)  # whatever the CLI left running (the leader is still unreaped)
        threads[1].join(max(0.0, deadline - time.monotonic()))
        finished = finished and not threads[1].is_alive()  # a process outside the group holds stdout
        if state["too_large"]:
            raise ModelCallError(
                ErrorCode.PROVIDER, "the agent's CLI printed too much", reason=Reason.RESPONSE_TOO_LARGE
            )
        if not finished:
            raise ModelCallError(ErrorCode.TIMEOUT, reason=Reason.DEADLINE)
    finally:
        _kill_group(process.pid)
        with contextlib.suppress(OSError, ValueError):
            process.stdout.close()
        process.wait()
        for thread in threads:
            thread.join(1.0)
    return CliResult(process.returncode, b"".join(chunks), time.monotonic() - started)
