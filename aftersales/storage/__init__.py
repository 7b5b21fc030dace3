"""Storage: SQLAlchemy models, repositories and the unit of work."""
