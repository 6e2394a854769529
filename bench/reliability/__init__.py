"""The standing reliability suite: memevo tried from outside, as an agent, a supervisor and a
misbehaving model would try it.

Each check is a module with a ``run(...)`` function that returns its figures as a dict and
raises ``AssertionError`` when a figure is wrong; ``tests/reliability`` runs them all with
small numbers (marked ``slow``), ``python -m bench.reliability`` with larger ones:

* ``chaos``: SIGKILL the worker's process group at random moments during consolidations
  against the loopback model; nothing lost, nothing applied twice, integrity ok;
* ``concurrency``: producer processes capturing through the hook entry while two worker
  processes consolidate; exact counts;
* ``hook_fuzz``: hypothesis-generated hostile hook input for every event and adapter, in
  process through the hook's own entry function and as a few real processes;
* ``model_replies``: malformed model replies and transport failures, each rejected with
  nothing written and a retry scheduled;
* ``planted_secrets``: every planted secret of the redaction corpus captured through the
  hooks, consolidated, and searched for in every file of the state dir and every request
  the model received.
"""
