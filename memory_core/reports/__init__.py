"""Read-only views for people: ``status`` (health, counts, jobs) and ``inspection``
(listing and showing claims, history). Nothing here writes."""
