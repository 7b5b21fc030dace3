"""The worlds' own storage: the registry table, and the databases (files or PostgreSQL databases) worlds live in."""
