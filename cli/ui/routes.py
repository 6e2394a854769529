"""Which page or action answers a path."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from cli.ui import actions
from cli.ui.activity import injections_page, learning_page, queue_page
from cli.ui.charts import charts_page
from cli.ui.memory_page import memory_page
from cli.ui.pages import memories_page, review_page

PAGES: dict[str, Callable[..., tuple[str, str]]] = {
    "/": memories_page,
    "/review": review_page,
    "/queue": queue_page,
    "/learning": learning_page,
    "/injections": injections_page,
    "/charts": charts_page,
}
ACTIONS: dict[str, Callable[..., str]] = {
    "/undo": actions.undo_action,
    "/review/approve": actions.approve_action,
    "/review/approve-all": actions.approve_all_action,
    "/queue/evolve": actions.evolve_action,
}
MEMORY_VERBS = ("forget", "correct", "pin", "unpin", "resolve", "feedback")


def page_for(path: str) -> tuple[Callable[..., tuple[str, str]], tuple[Any, ...]] | None:
    if path in PAGES:
        return PAGES[path], ()
    parts = path.split("/")
    if len(parts) == 3 and parts[1] == "memory" and parts[2]:
        return memory_page, (parts[2],)
    return None


def action_for(path: str) -> tuple[Callable[..., str], tuple[Any, ...]] | None:
    if path in ACTIONS:
        return ACTIONS[path], ()
    parts = path.split("/")
    if len(parts) == 4 and parts[1] == "memory" and parts[3] in MEMORY_VERBS:
        return actions.memory_action, (parts[2], parts[3])
    return None
