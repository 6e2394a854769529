"""Escaping and the page frame shared by every page."""

from __future__ import annotations

from html import escape
from urllib.parse import urlencode

from memory_core.clock import iso

NAV = (
    ("/", "Memories"),
    ("/review", "Review"),
    ("/queue", "Queue"),
    ("/learning", "Learning"),
    ("/injections", "Injections"),
    ("/charts", "Charts"),
)


def e(value: object) -> str:
    """Text for HTML (element content and quoted attributes)."""
    return escape("" if value is None else str(value), quote=True)


def when(at: object) -> str:
    """A timestamp as a ``<time>`` element (UTC), or a dash."""
    if not isinstance(at, int | float):
        return "-"
    text = iso(float(at)) or "-"
    return f'<time datetime="{e(text)}">{e(text.replace("T", " ").replace("Z", " UTC"))}</time>'


def link(path: str, text: str, **query: object) -> str:
    kept = {k: v for k, v in query.items() if v not in (None, "")}
    href = path + ("?" + urlencode(kept) if kept else "")
    return f'<a href="{e(href)}">{e(text)}</a>'


def hidden(name: str, value: object) -> str:
    return f'<input type="hidden" name="{e(name)}" value="{e(value)}">'


def action_form(
    path: str, label: str, csrf: str, *, back: str = "", css: str = "", confirm: str = "", fields: str = ""
) -> str:
    """One button that POSTs to ``path`` with the page's CSRF token."""
    attrs = f' data-confirm="{e(confirm)}"' if confirm else ""
    klass = f' class="{e(css)}"' if css else ""
    return (
        f'<form method="post" action="{e(path)}"{attrs}>{hidden("csrf", csrf)}'
        f"{hidden('back', back) if back else ''}{fields}"
        f'<button type="submit"{klass}>{e(label)}</button></form>'
    )


def page(title: str, body: str, *, current: str, notice: str = "", error: str = "") -> str:
    """The whole document: navigation, a notice or error, and ``body``."""
    here = ' aria-current="page"'
    nav = "".join(f'<a href="{href}"{here if href == current else ""}>{e(text)}</a>' for href, text in NAV)
    flash = ""
    if error:
        flash = f'<p class="notice error" role="alert">{e(error)}</p>'
    elif notice:
        flash = f'<p class="notice" role="status">{e(notice)}</p>'
    return (
        "<!doctype html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{e(title)} · memevo</title>"
        '<link rel="stylesheet" href="/static/app.css"><script src="/static/app.js" defer></script>'
        "</head><body>"
        '<a class="skip" href="#main">Skip to content</a>'
        f'<header><nav aria-label="Sections"><a class="brand" href="/">memevo</a>{nav}</nav></header>'
        f'<main id="main"><h1>{e(title)}</h1>{flash}{body}</main></body></html>'
    )
