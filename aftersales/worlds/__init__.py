"""Worlds: isolated, time-pinned, resettable copies of the service's data (see docs/worlds.md)."""
