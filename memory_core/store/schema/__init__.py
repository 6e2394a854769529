"""The store's schema and the policies written into it.

* ``migrations`` / ``migration_steps`` / ``index_migrations``: numbered migrations, each step
* ``columns``: the column lists every reader and writer shares
* ``index_version``: the recall index's own version
* ``owners`` / ``team`` / ``policies``: whose a row is, members, row-level security
* ``integrity``: checking every stored row
"""
