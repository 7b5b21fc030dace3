"""What the services need of storage, owned by the services (cosmicpython's AbstractUnitOfWork).

`unit_of_work.UnitOfWork` is the transaction the services run in, `repositories` the Protocols of what it holds,
`rows` the rows they hand back and the `Conflict` they raise. `storage/` implements them on SQLAlchemy and
`tests/support/fakes.py` over in-memory tables; both declare it, so mypy proves each one follows the ports.
"""
