"""The one source of stored random ids (quote handles): UUIDv4, or ids a context derives deterministically.

A deterministic world sets a source that derives each id from the world's seed and a counter kept with the world,
so two runs of the same episode store the same ids.
"""

import hashlib
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

_source: ContextVar[Callable[[], str] | None] = ContextVar("aftersales_id_source", default=None)


def new_id() -> str:
    """A fresh id: the context's source when it has one, else a random UUIDv4."""
    source = _source.get()
    return str(uuid.uuid4()) if source is None else source()


@contextmanager
def using(source: Callable[[], str]) -> Iterator[None]:
    """Make `new_id()` call `source` in the enclosed code."""
    token = _source.set(source)
    try:
        yield
    finally:
        _source.reset(token)


def derived_id(seed: int, counter: int) -> str:
    """The `counter`-th id of a seed: a UUID with the version-4 layout, from SHA-256, so it looks like any other."""
    digest = hashlib.sha256(f"aftersales-id:{seed}:{counter}".encode()).digest()
    return str(uuid.UUID(bytes=digest[:16], version=4))
