"""`memevo backfill AGENT`: the sources the live hooks would have made, from saved sessions."""
