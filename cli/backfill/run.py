"""One backfill run: an agent's saved sessions read, and the sources the live hooks would have
made from them captured through the same code.

Each event a reader yields crosses what a hook's event crosses (valid UTF-8, private parts
removed, the exclude setting) and is captured as the hook's handler captures it
(:mod:`cli.hooks.dispatch`): a compaction summary as a ``summary`` source, a turn end's
statements and progress through :func:`memory_core.capture.turn.capture_turn`, with the same
dedupe keys, so a session backfilled twice, or captured live and backfilled, is one set of
sources. Each source carries the time its turn happened. Feedback messages (``memory ID is
wrong``) are not replayed: they answered a digest of their day; nor is the learning log
written, which is the record of live turns (the summary counts what backfill kept). One transaction per session:
a run that is killed loses at most the session it was in, and running it again continues.

Dry runs open no store for writing: they count what would be read and the sources capture
would make of the store as it is (cli.backfill.capture.planned_sources).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from cli.backfill.locate import session_files, sessions_root
from cli.backfill.reading import SessionEvent, SessionSkipped, Tally
from cli.hooks.event import HookEvent, valid_event, without_private
from memory_core.privacy.exclusion import exclude_globs, excluded_by

DAY = 86_400.0


def reader_for(agent: str) -> Callable[[str, Tally, float], Iterator[SessionEvent]]:
    """The session reader of ``agent``."""
    from importlib import import_module

    module = {"claude-code": "claude_code", "codex": "codex", "gemini": "gemini", "pi": "pi"}[agent]
    return import_module(f"cli.backfill.{module}").read_session  # type: ignore[no-any-return]


class Counts:
    """What a run read and did, for the summary."""

    def __init__(self) -> None:
        self.files = 0
        self.sessions = 0
        self.excluded = 0
        self.other_projects = 0
        self.older = 0
        self.events = 0
        self.turns = 0
        self.private_only = 0
        self.sources: dict[str, int] = {"summary": 0, "user_statement": 0, "progress": 0}
        self.already = 0
        self.not_kept = 0  # turns the capture rules kept nothing of
        self.bytes = 0

    def as_dict(self, tally: Tally) -> dict[str, Any]:
        return {
            "session_files": self.files,
            "sessions_read": self.sessions,
            "turns_read": self.turns,
            "sessions_excluded": self.excluded,
            "sessions_of_other_projects": self.other_projects,
            "sessions_older_than_since": self.older,
            "bytes_read": self.bytes,
            "bad_lines": tally.bad_lines,
            "events_private_as_a_whole": self.private_only,
            "sources": dict(self.sources),
            "sources_total": sum(self.sources.values()),
            "already_captured": self.already,
            "turns_without_a_source": self.not_kept,
            "skipped": list(tally.skipped),
        }


class Backfill:
    """A backfill of ``agent``'s sessions into the state dir ``home``.

    ``project``: the origin whose sessions are read (``None``: every project); ``since``:
    sessions and turns older than this are left alone; ``dry_run``: nothing is written.
    """

    def __init__(
        self,
        agent: str,
        home: Path,
        *,
        since: float,
        project: str | None,
        dry_run: bool,
        now: float,
        env: dict[str, str] | None = None,
    ) -> None:
        self.agent = agent
        self.home = home
        self.since = since
        self.project = project
        self.dry_run = dry_run
        self.now = now
        self.env = dict(os.environ) if env is None else env
        self.globs = exclude_globs(home, self.env)
        self.tally = Tally()
        self.counts = Counts()
        self._origins: dict[str, str] = {}
        self._planned: set[str] = set()  # a dry run's sources so far: one source, once
        self._read = reader_for(agent)

    def files(self) -> list[str]:
        """The agent's session files changed since ``since``, oldest first."""
        root = sessions_root(self.agent, self.env)
        found = []
        for path in session_files(self.agent, root, self.tally.skip):
            try:
                mtime = os.stat(path).st_mtime
            except OSError as exc:
                self.tally.skip(f"{path}: skipped: cannot be read ({exc.strerror or type(exc).__name__})")
                continue
            if mtime >= self.since:
                found.append((mtime, path))
            else:
                self.counts.older += 1
        self.counts.files = len(found)
        return [path for _, path in sorted(found)]

    def origin_of(self, cwd: str) -> str:
        if cwd not in self._origins:
            from memory_core.capture.intake import capture_project

            self._origins[cwd] = capture_project(cwd, self.home).origin
        return self._origins[cwd]

    def session_events(self, path: str) -> Iterator[tuple[HookEvent, float]]:
        """The events of one session file to capture, with their times, streamed; nothing when
        the session is skipped as a whole (excluded, of another project, unreadable), which
        the counts and the skipped lines say."""
        try:
            info = os.stat(path)
        except OSError as exc:
            self.tally.skip(f"{path}: skipped: cannot be read ({exc.strerror or type(exc).__name__})")
            return
        self.counts.bytes += info.st_size
        counted = False
        try:
            for item in self._read(path, self.tally, info.st_mtime):
                event, at = item.event, item.at
                if self.globs and (not event.cwd or excluded_by(event.cwd, self.globs) is not None):
                    self.counts.excluded += 1  # nothing more of the session is read
                    return
                if self.project is not None and self.origin_of(event.cwd) != self.project:
                    self.counts.other_projects += 1
                    return
                if not counted:
                    self.counts.sessions += 1
                    counted = True
                if at < self.since:
                    continue
                self.counts.events += 1
                self.counts.turns += event.event == "turn_end"
                clean = without_private(valid_event(event))
                if clean is None or (clean.event == "turn_end" and not clean.user_messages):
                    self.counts.private_only += 1
                    continue
                yield clean, at
        except SessionSkipped as exc:
            self.tally.skip(f"{path}: skipped: {exc}")
        except (OSError, ValueError, RecursionError) as exc:
            self.tally.skip(f"{path}: skipped: cannot be read ({type(exc).__name__}: {exc})")

    def run(self, on_session: Callable[[int, int], None] | None = None) -> dict[str, Any]:
        """Read every session file; ``on_session(sessions_done, sources_so_far)`` after each.
        The summary: what was read, the sources made (or, dry, that would be made), and what
        their model calls cost at the current budget."""
        files = self.files()
        store = None if self.dry_run else self._open_store()
        readonly = self._open_readonly() if self.dry_run else None
        try:
            for done, path in enumerate(files, 1):
                batch: list[tuple[HookEvent, float]] = []
                for item in self.session_events(path):
                    batch.append(item)
                    if len(batch) >= BATCH_EVENTS:
                        self._flush(store, readonly, batch)
                        batch = []
                if batch:
                    self._flush(store, readonly, batch)
                if on_session is not None:
                    on_session(done, sum(self.counts.sources.values()))
        finally:
            if store is not None:
                store.close()
            if readonly is not None:
                readonly.close()
        return self.summary()

    def _open_store(self) -> Any:
        from memory_core.store.engines.database import Store

        return Store.open(self.home)

    def _open_readonly(self) -> Any:
        from memory_core.store.engines.database import Store

        return Store.open_existing_readonly(self.home)

    def _flush(self, store: Any, readonly: Any, batch: list[tuple[HookEvent, float]]) -> None:
        if store is None:
            for event, at in batch:
                self._count_planned(readonly.conn if readonly is not None else None, event, at)
            return
        from cli.backfill.capture import capture_event
        from memory_core.jobs.backlog_pacing import backlog_start, make_due, paced_due_times, spacing_seconds

        spacing = spacing_seconds(self.calls_per_day())
        with store.transaction() as conn:
            created: list[str] = []
            for event, at in batch:
                made = capture_event(conn, self.home, event, at, self.origin_of(event.cwd))
                self._count_made(made, event)
                created.extend(source_id for _, source_id in made)
            if created:
                make_due(conn, created, paced_due_times(backlog_start(conn, self.now, spacing), len(created), spacing))

    def _count_made(self, made: list[tuple[str, str]], event: HookEvent) -> None:
        if not made:
            if event.event == "turn_end":
                self.counts.not_kept += 1
            else:
                self.counts.already += 1
        for kind, _ in made:
            self.counts.sources[kind] = self.counts.sources.get(kind, 0) + 1

    def _count_planned(self, conn: Any, event: HookEvent, at: float) -> None:
        from cli.backfill.capture import planned_sources

        planned = planned_sources(conn, self.home, event, self.origin_of(event.cwd))
        fresh = [(kind, sid) for kind, sid in planned if sid not in self._planned and not _exists(conn, sid)]
        self._planned.update(sid for _, sid in planned)
        if not fresh:
            if event.event == "turn_end":
                self.counts.not_kept += 1
            else:
                self.counts.already += 1
        for kind, _ in fresh:
            self.counts.sources[kind] = self.counts.sources.get(kind, 0) + 1

    def calls_per_day(self) -> int:
        """Model calls a day the budget allows (its token limit included, at the recent
        tokens per call)."""
        return int(self._budget()["calls_per_day"])

    def _budget(self) -> dict[str, Any]:
        if not hasattr(self, "_budget_seen"):
            from memory_core.config import load_settings
            from memory_core.jobs.budget import DEFAULT_TOKENS_PER_CALL, tokens_per_call

            settings = load_settings(self.env)
            per_call = DEFAULT_TOKENS_PER_CALL
            opened = self._open_readonly()
            if opened is not None:
                with opened:
                    per_call = tokens_per_call(opened.conn, self.now)
            per_day = max(0, min(settings.daily_model_calls, settings.daily_model_tokens // max(1, per_call)))
            self._budget_seen = {"calls_per_day": per_day, "tokens_per_call": per_call}
        return self._budget_seen

    def summary(self) -> dict[str, Any]:
        from memory_core.jobs.backlog_pacing import BACKLOG_SHARE, backlog_days

        data = self.counts.as_dict(self.tally)
        budget = self._budget()
        calls = data["sources_total"]
        data.update(
            agent=self.agent,
            dry_run=self.dry_run,
            since=self.since,
            project=self.project,
            model_calls=calls,
            model_tokens=calls * budget["tokens_per_call"],
            tokens_per_call=budget["tokens_per_call"],
            calls_per_day=budget["calls_per_day"],
            backlog_share=BACKLOG_SHARE,
            days=round(backlog_days(calls, budget["calls_per_day"]), 2) if budget["calls_per_day"] else None,
        )
        return data


BATCH_EVENTS = 64  # events captured in one transaction: a live hook never waits long for the store


def _exists(conn: Any, source_id: str) -> bool:
    """Whether the store (``None``: none yet) holds ``source_id``."""
    if conn is None:
        return False
    from memory_core.store.tables.source_rows import source_exists

    return bool(source_exists(conn, source_id))
