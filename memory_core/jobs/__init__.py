"""The consolidation job state machine: pure policy plus the SQL that applies it."""
