"""One module per subject; each exposes click commands registered in :mod:`cli.main`."""
