"""Delivering the events hooks spooled while ``memevo serve`` was down (:mod:`cli.hooks.spool`).

The server's drainer thread runs each spooled event through the hook's own code at its
original time: when the server starts, every :data:`DRAIN_SECONDS`, and when a gateway
request finds the spool non-empty.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

from cli.hooks import spool
from cli.hooks.damaged_store import damaged_store
from cli.hooks.entry import event_label, log_failure, parse_payload, run_events
from memory_core.errors import MemevoError, StoreError
from memory_core.privacy.sanitize import valid_text

DRAIN_SECONDS = 30.0  # how often the spool is looked at besides start-up and gateway requests
# While the store stays unreachable or damaged the drainer meets the same reason every
# DRAIN_SECONDS: logged when it is new, then once an hour, not 120 times (logs/hooks.log is
# bounded, and the lines would push out everything else).
REPEAT_SECONDS = 3600.0
_waiting: dict[str, float] = {}  # reason -> when "not delivered yet" was last logged for it


def worth_logging(reason: str, now: float, logged: dict[str, float], every: float = REPEAT_SECONDS) -> bool:
    """Whether "not delivered yet" for ``reason`` is logged at ``now`` (and noted in ``logged``):
    the first time, and again once ``every`` seconds have passed."""
    last = logged.get(reason)
    if last is not None and 0 <= now - last < every:
        return False
    if len(logged) > 64:  # reasons carry details (paths, messages): keep the memo small
        logged.clear()
    logged[reason] = now
    return True


def _not_delivered(label: str, reason: str) -> None:
    from memory_core import clock
    from memory_core.paths import state_home

    # Per state dir: its hooks.log is where the line goes.
    if worth_logging(f"{state_home()}\n{reason}", clock.now(), _waiting):
        log_failure(f"{label}: spooled event not delivered yet: {reason}")


def deliver_spooled(item: spool.Spooled) -> bool:
    """Deliver one spooled event through the hook's own code at its original time: ``True``
    once done (a failure the hook would only have reported is logged as it would have been),
    ``False`` when the store cannot be reached or is damaged (tried again later); an event that fails
    inside memevo is set aside (:class:`cli.hooks.spool.CorruptSpoolFile`), not retried."""
    label = item.event or "hook"
    try:
        payload = parse_payload(item.raw)
        label = event_label(payload, item.event)
        run_events(payload, item.event, item.adapter, item.now, [])
    except StoreError as exc:
        _not_delivered(label, valid_text(str(exc)))
        return False
    except MemevoError as exc:
        log_failure(f"{label}: {valid_text(str(exc))}")
        return True
    except Exception as exc:
        damage = damaged_store(exc)
        if damage is not None:  # kept for the restore (cli.hooks.damaged_store.keep_for_restore)
            _not_delivered(label, damage)
            return False
        import traceback

        log_failure(f"{label}: internal error delivering a spooled event", traceback.format_exc())
        raise spool.CorruptSpoolFile(f"internal error ({type(exc).__name__}); details in logs/hooks.log") from None
    return True


def deliver_kept(home: Path, who: str, *, wait: float = 0.0) -> tuple[int, int, int, str | None]:
    """Deliver the spool now, for a command (``memevo restore``, a starting ``memevo worker``):
    ``(delivered, set aside, left, None)``, or with the name of the error that stopped it
    (logged as ``who``'s; what is still kept waits for the next try). ``wait``: how long to
    wait for a drain already at work (:func:`cli.hooks.spool.drain`)."""
    try:
        delivered, aside = spool.drain(home, deliver_spooled, log_failure, wait=wait)
    except Exception as exc:
        log_failure(f"{who}: delivering the spool failed ({type(exc).__name__}: {valid_text(str(exc))})")
        return 0, 0, len(spool.pending(home)), type(exc).__name__
    return delivered, aside, len(spool.pending(home)), None


class SpoolDrainer(threading.Thread):
    """Delivers the state dir's spool at once, then every ``seconds`` and when woken."""

    def __init__(self, home: Path, seconds: float, note: Callable[[str], None]) -> None:
        super().__init__(name="memevo-spool", daemon=True)
        self.home = home
        self.seconds = seconds
        self.note = note
        self._wake = threading.Event()
        self._stopping = threading.Event()

    def run(self) -> None:
        while not self._stopping.is_set():
            self.drain_once()
            self._wake.wait(self.seconds)
            self._wake.clear()

    def drain_once(self) -> None:
        try:
            delivered, aside = spool.drain(self.home, deliver_spooled, log_failure)
        except Exception:
            import traceback

            log_failure("spool: internal error while delivering", traceback.format_exc())
            return
        if delivered or aside:
            left = len(spool.pending(self.home))
            self.note(f"spool: delivered {delivered} event(s), set aside {aside}, {left} left")

    def wake(self) -> None:
        self._wake.set()

    def stop(self) -> None:
        self._stopping.set()
        self._wake.set()
        self.join(timeout=10)
