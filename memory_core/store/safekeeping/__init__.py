"""Checked copies of ``memory.db`` and putting one back.

* ``backups``: copies through SQLite's backup API, checked (daily, before migrations)
* ``restore``: a copy put back in place of a damaged store, the damaged files kept
* ``damage``: SQLite's words for a damaged database file
"""
