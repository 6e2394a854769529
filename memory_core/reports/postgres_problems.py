"""What a PostgreSQL connection error is about, and the command that fixes it, for doctor.

:mod:`memory_core.store.engines.pg` turns every driver error into one line (``describe_error``);
here that line is sorted into a problem (``login``, ``no_database``, …) with a summary and a
fix naming the server, port, user and database of the URL, never its password.
"""

from __future__ import annotations

import shlex
from urllib.parse import unquote, urlsplit

# The problem a PostgreSQL connection error names, by the words memory_core.store.engines.pg uses for
# it (describe_error and the driver check); the first match wins.
_PG_PROBLEMS = (
    ("driver", "driver is not installed"),
    ("login", "refused the login"),
    ("no_database", "createdb"),
    ("no_role", "create the role"),
    ("client_refused", "pg_hba.conf"),
    ("unreachable", "cannot reach postgresql"),
)


def postgres_problem(message: str) -> str:
    """``driver``, ``login``, ``no_database``, ``no_role``, ``client_refused``,
    ``unreachable`` or ``other``: what a store connection error is about."""
    lowered = message.lower()
    return next((problem for problem, words in _PG_PROBLEMS if words in lowered), "other")


def _pg_parts(url: str) -> dict[str, str]:
    """Host, port, user and database of a PostgreSQL URL for the commands a fix names; never
    the password."""
    parts = urlsplit(url)
    try:
        port = str(parts.port or 5432)
    except ValueError:
        port = "5432"
    return {
        "host": parts.hostname or "localhost",
        "port": port,
        "user": unquote(parts.username or "") or "$USER",
        "db": unquote(parts.path.lstrip("/")) or "memevo",
    }


def postgres_fix(problem: str, url: str) -> str:
    p = {name: shlex.quote(value) for name, value in _pg_parts(url).items()}
    target = f"-h {p['host']} -p {p['port']}"
    fixes = {
        "driver": "pip install 'memevo[postgres]'  # the PostgreSQL driver (psycopg 3)",
        "login": f"psql {target} -U {p['user']} -d {p['db']} -c 'select 1'  "
        "# then put the right password in ~/.pgpass (preferred) or MEMEVO_DATABASE_URL",
        "no_database": f"createdb {target} -U {p['user']} {p['db']}  # or fix the database name in MEMEVO_DATABASE_URL",
        "no_role": f"createuser {target} --pwprompt {p['user']}  # as a superuser, or fix the user in the URL",
        "client_refused": "add a `host DB USER ADDRESS/32 scram-sha-256` line to the server's pg_hba.conf, "
        "then reload it (pg_ctl reload)",
        "unreachable": f"pg_isready {target}  # start the server, or fix the host and port in MEMEVO_DATABASE_URL",
    }
    return fixes.get(problem, f"psql {target} -U {p['user']} -d {p['db']}  # and read what the server says")


PG_SUMMARIES = {
    "driver": "the PostgreSQL driver is not installed",
    "login": "the server refused the login",
    "no_database": "the database does not exist",
    "no_role": "the user (role) does not exist",
    "client_refused": "the server does not accept connections from this machine",
    "unreachable": "the server cannot be reached",
}
