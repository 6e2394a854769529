"""The tables' operations: small functions taking a connection, one module per table.

* ``memories`` / ``changes``: claim rows; :class:`ChangeSet`, the one way to change them
* ``claim_rows`` / ``event_rows`` / ``blocked``: the same rows with the standard library
  only (a hook's writes, never the record models)
* ``sources`` / ``source_rows``: source rows (job state included) as records; the lean insert
* ``events``: the history of changes, with actual before/after
* ``generations`` / ``suppression``: per-origin manual-change counters; blocked content
* ``postings`` / ``index_parts`` / ``claim_ids``: the write side of the recall index
* ``replacements`` / ``origin_aliases`` / ``review_marks``: replacement chains; a
  project's other names; what a person has reviewed
"""
