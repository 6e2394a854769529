"""`memevo team add|list|remove`: the members of a team memory on PostgreSQL (docs/team.md).

Run with the administrator's URL (the login that owns memevo's tables). Each member gets a
login of their own; the database's row-level security keeps their sources and personal
claims from every other member.
"""

from __future__ import annotations

import secrets
from typing import Any
from urllib.parse import quote, urlsplit, urlunsplit

import click

from cli.context import emit, json_option, open_store, settings
from memory_core.store.engines.backend import redact


def member_url(admin_url: str, name: str, password: str) -> str:
    """The administrator's URL with the member's login and password in its place."""
    parts = urlsplit(admin_url)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    netloc = f"{quote(name)}:{quote(password, safe='')}@{host}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


@click.group("team")
def team_command() -> None:
    """Members of a team memory on PostgreSQL: add, list, remove (docs/team.md)."""


def _render_added(data: dict[str, Any]) -> str:
    return (
        f"added {data['name']}; hand them this URL (it holds their password, shown once):\n"
        f"  {data['url']}\n"
        "they set it as MEMEVO_DATABASE_URL (or keep the password in ~/.pgpass) and run "
        "`memevo serve` and `memevo worker` on their machine"
    )


@team_command.command("add")
@click.argument("name")
@json_option
def add_command(name: str, as_json: bool) -> None:
    """Create NAME's own login and print the URL to hand them."""
    from memory_core.store.schema.team import add_member, require_administrator, require_member_name
    from workers.app import make_huey

    require_member_name(name)  # before opening anything
    with open_store() as store:
        require_administrator(store.conn)
        # The queue's tables exist before the grants: the member's login creates no table.
        make_huey(settings().home).pending_count()
        with store.transaction() as conn:
            added = add_member(conn, name, secrets.token_urlsafe(18))
    url = member_url(settings().backend.url, added.name, added.password)
    emit({"name": added.name, "url": url}, as_json, _render_added)


@team_command.command("list")
@json_option
def list_command(as_json: bool) -> None:
    """List the members (not the administrator)."""
    from memory_core.store.schema.team import list_members

    with open_store() as store:
        members = list_members(store.conn)
    emit(
        {"store": redact(settings().backend.url), "members": members},
        as_json,
        lambda d: "\n".join(d["members"]) or "no members yet; `memevo team add NAME`",
    )


@team_command.command("remove")
@click.argument("name")
@click.option(
    "--erase",
    is_flag=True,
    help="Also delete NAME's personal claims, every source of theirs and their personal history "
    "(their shared claims stay). Works for a member removed earlier too.",
)
@json_option
def remove_command(name: str, erase: bool, as_json: bool) -> None:
    """Drop NAME's login; --erase also deletes their personal rows. Shared claims stay.

    One transaction: nothing changes if any step is refused."""
    from memory_core.errors import NotFoundError
    from memory_core.store.schema.team import (
        erase_member_rows,
        has_personal_rows,
        list_members,
        remove_member,
        require_member_name,
    )

    require_member_name(name)
    data: dict[str, Any] = {"removed": name}
    with open_store() as store:
        with store.transaction() as conn:
            member = name in list_members(conn)
            if not member and not (erase and has_personal_rows(conn, name)):
                raise NotFoundError(f"{name} is not a member of this memory; see `memevo team list`")
            if erase:
                erased = erase_member_rows(conn, name)
                data["erased"] = erased._asdict()
            if member:
                remove_member(conn, name)
            else:
                data["removed"] = None
    emit(data, as_json, _render_removed)


def _render_removed(data: dict[str, Any]) -> str:
    lines = [f"removed {data['removed']}"] if data["removed"] else []
    erased = data.get("erased")
    if erased is not None:
        lines.append(
            f"erased {erased['claims']} personal claims, {erased['sources']} sources and "
            f"{erased['events']} history events; shared claims stay"
        )
    return "\n".join(lines)


COMMANDS = [team_command]
