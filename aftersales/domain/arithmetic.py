"""Numbers, or SQL expressions that compose like them: a rule written once serves Python and the database."""

from typing import Any, Protocol, TypeVar


class Arithmetic(Protocol):
    """Anything with integer arithmetic: an int, or a column expression that storage turns into SQL."""

    def __add__(self, other: Any, /) -> Any: ...
    def __sub__(self, other: Any, /) -> Any: ...
    def __mul__(self, other: Any, /) -> Any: ...
    def __floordiv__(self, other: Any, /) -> Any: ...


Number = TypeVar("Number", bound=Arithmetic)
