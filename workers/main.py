"""The consumer's entry module: ``huey_consumer workers.main.huey`` (see the Procfile).

Importing the tasks here registers them with the instance from :mod:`workers.app`.
"""

from workers import tasks  # noqa: F401  (registers the tasks)
from workers.app import huey

__all__ = ["huey"]
