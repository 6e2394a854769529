"""The `memevo` command line."""
