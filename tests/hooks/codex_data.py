"""The real Codex 0.169.1 payloads and rollout in tests/data/codex, and helpers.

``payload(name)`` is a file of ``payloads/`` (the shared recordings); ``memevo_payload``
one recorded beside memevo's own hooks (``hooks-memevo.jsonl``), whose rollout is
``ROLLOUT``. Helpers cut the rollout where a hook saw it and copy real records with new
text or ids, so the record shapes stay the CLI's own.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from tests.hooks.support import hook_process, with_changes, write_records  # noqa: F401  (re-exported)
from tests.support.processes import REPO

DATA = REPO / "tests" / "data" / "codex"
ROLLOUT = DATA / "rollout-memevo-hooks.jsonl"
SESSION = "01a239d3-fd05-7302-8a12-10595b8c02d8"
PROJECT = "/home/user/project"

# turn_id of each recorded turn of ROLLOUT
TURN_REMEMBER = "01a239d3-fd12-73a0-b886-fca9ec1a8673"
TURN_RECALL = "01a239d4-0272-7151-bbe4-46336449c552"
TURN_TOOLS = "01a239d4-069c-73b2-9a76-d15ea2bb19d8"
SAID = {
    TURN_REMEMBER: "Remember that the staging database listens on port 5433.",
    TURN_RECALL: "How does the billing service deploy?",
    TURN_TOOLS: "Run ls /nonexistent-dir and echo hi-from-tool.",
}


def payload(name: str, transcript: Path | str | None = None, **changes: Any) -> dict[str, Any]:
    """The recorded stdin of ``payloads/<name>.json``; ``transcript`` replaces its
    ``transcript_path``; ``changes`` set fields (``None`` removes one)."""
    data = json.loads((DATA / "payloads" / f"{name}.json").read_text(encoding="utf-8"))["stdin"]
    return _changed(data, transcript, changes)


def memevo_payloads() -> list[dict[str, Any]]:
    """Every payload recorded beside memevo's hooks, in order."""
    lines = (DATA / "hooks-memevo.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line)["stdin"] for line in lines if line.strip()]


def memevo_payload(
    event: str, of_turn: str | None = None, transcript: Path | str | None = ROLLOUT, **changes: Any
) -> dict[str, Any]:
    """The payload of ``event`` (of the turn ``of_turn``) recorded beside memevo's hooks."""
    for data in memevo_payloads():
        if data["hook_event_name"] == event and (of_turn is None or data.get("turn_id") == of_turn):
            return _changed(data, transcript, changes)
    raise LookupError((event, of_turn))


def _changed(data: dict[str, Any], transcript: Path | str | None, changes: dict[str, Any]) -> dict[str, Any]:
    data = copy.deepcopy(data)
    if transcript is not None:
        data["transcript_path"] = str(transcript)
    return with_changes(data, changes)


def records(path: Path = ROLLOUT) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def records_until(turn_id: str, *, through: bool = True) -> list[dict[str, Any]]:
    """The rollout as it stood when the turn ``turn_id`` ended (``through``), or before it
    started (as the prompt hook sees it): later turns cut off."""
    items = records()
    starts = [i for i, r in enumerate(items) if r["type"] == "event_msg" and r["payload"].get("type") == "task_started"]
    mine = next(i for i in starts if items[i]["payload"]["turn_id"] == turn_id)
    if not through:
        return items[:mine]
    return items[: next((i for i in starts if i > mine), len(items))]


def without_user_events(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The records without Codex's ``UserMessage`` events, as an older rollout has them."""
    return [
        r
        for r in items
        if not (
            r["type"] == "event_msg"
            and r["payload"].get("type") == "item_completed"
            and r["payload"]["item"].get("type") == "UserMessage"
        )
    ]


def user_turn(text: str, turn_id: str) -> list[dict[str, Any]]:
    """A new turn's opening records (task_started, the user message and its event), copied
    from the recorded first turn, saying ``text``."""
    opening = [
        r
        for r in records()
        if _turn_of(r) == TURN_REMEMBER
        and (
            (
                r["type"] == "event_msg"
                and r["payload"].get("type") in ("task_started", "item_completed")
                and (r["payload"].get("type") == "task_started" or r["payload"]["item"].get("type") == "UserMessage")
            )
            or (
                r["type"] == "response_item"
                and r["payload"].get("role") == "user"
                and r["payload"]["content"][0]["text"] == SAID[TURN_REMEMBER]
            )
        )
    ]
    out = []
    for record in copy.deepcopy(opening):
        payload = record["payload"]
        if "turn_id" in payload:
            payload["turn_id"] = turn_id
        if "turn_attribution" in payload:
            payload["turn_attribution"]["turn_id"] = payload["turn_attribution"]["root_turn_id"] = turn_id
            payload["root_turn_id"] = turn_id
        meta = payload.get("internal_chat_message_metadata_passthrough")
        if meta:
            meta["turn_id"] = turn_id
        for part in payload.get("content") or payload.get("item", {}).get("content") or []:
            part["text"] = text
        out.append(record)
    return out


def assistant_message(text: str, turn_id: str) -> dict[str, Any]:
    """An assistant message of ``turn_id`` shaped like the recorded first reply."""
    template = next(r for r in records() if r["type"] == "response_item" and r["payload"].get("role") == "assistant")
    record = copy.deepcopy(template)
    record["payload"]["content"][0]["text"] = text
    record["payload"]["internal_chat_message_metadata_passthrough"]["turn_id"] = turn_id
    return record


def _turn_of(record: dict[str, Any]) -> str | None:
    payload = record["payload"]
    meta = payload.get("internal_chat_message_metadata_passthrough") or {}
    return payload.get("turn_id") or meta.get("turn_id")
