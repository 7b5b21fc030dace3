"""Use cases: plain functions over a unit of work, returning view models."""
