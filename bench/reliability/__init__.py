"""The standing reliability suite: memevo tried from outside, as an agent, a supervisor and a
misbehaving model would try it.

Each check is a module with a ``run(...)`` function that returns its figures as a dict and
raises ``AssertionError`` when a figure is wrong; ``tests/reliability`` runs them all with
small numbers (marked ``slow``) on SQLite and on PostgreSQL, ``python -m bench.reliability``
with larger ones. Every check runs on either backend (:mod:`bench.reliability.stores`: a
state dir with ``memory.db``, or fresh schemas of a PostgreSQL database), reads the store
through memevo's own ``Store`` and hands its real processes ``MEMEVO_DATABASE_URL``; on
PostgreSQL hooks go through a `memevo serve` the check starts. docs/reliability.md says
what each check proves and what it measured.

* ``chaos``: SIGKILL a consumer's process group (one of two, on PostgreSQL two machines) at
  random moments during consolidations against the loopback model; nothing lost, nothing
  applied twice, integrity ok;
* ``concurrency``: producer processes capturing as hooks do while two consumers
  consolidate; exact counts, one lease per source;
* ``hook_fuzz``: hypothesis-generated hostile hook input for every event and adapter, as the
  hook command handles it (on PostgreSQL through `memevo serve`) and as a few real processes;
* ``model_replies``: malformed model replies and transport failures, each rejected with
  nothing written and a retry scheduled;
* ``planted_secrets``: every planted secret of the redaction corpus captured through the
  hooks, consolidated, and searched for in every file of the state dir, every row of the
  PostgreSQL schema and every request the model received;
* ``pg_faults`` (PostgreSQL only): a worker killed, or its server connection ended, while
  its apply transaction holds uncommitted writes; nothing visible, the lease recovered, one
  claim in the end;
* ``gateway_chaos`` (PostgreSQL only): `memevo serve` killed with SIGKILL while producer
  processes capture through it; every turn stored exactly once through the spool;
* ``pg_drops`` (PostgreSQL only): every server connection of the serve, the consumers and
  the producers ended again and again under load; every turn and every claim exactly once.
"""
