"""Test helpers that stand in for the outside world (a loopback model server)."""
