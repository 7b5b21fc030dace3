"""Running code inside a world: `clock.now()` reads the world's clock and `ids.new_id()` its id sequence.

The web app enters the world of a request's token around the whole request, the way the caller is set, so the
tool's worker thread inherits it; nothing in domain/ or services/ sees more than the clock and the id function.
"""

from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from contextvars import ContextVar

from aftersales import clock, ids
from aftersales.worlds.model import World

_current: ContextVar[World | None] = ContextVar("aftersales_world", default=None)


def current() -> World | None:
    """The world the running code is in, or None for the default world."""
    return _current.get()


def current_id() -> str | None:
    """The id of the world the running code is in, or None for the default world."""
    world = _current.get()
    return None if world is None else world.id


@contextmanager
def entered(world: World, next_counter: Callable[[str], int]) -> Iterator[World]:
    """Run the enclosed code in `world`; `next_counter(id)` hands out the world's persisted id counter."""
    with ExitStack() as stack:
        stack.enter_context(clock.using(lambda: world.clock.now(clock.wall()), scope=world.id))
        if world.deterministic:
            stack.enter_context(ids.using(lambda: ids.derived_id(world.seed, next_counter(world.id))))
        token = _current.set(world)
        stack.callback(_current.reset, token)
        yield world
