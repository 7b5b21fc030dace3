"""The admin API's operations: a JSON body in, JSON out, over the worlds service (blocking: run on a worker thread).

The HTTP routes (web/admin.py) only authenticate, move the work off the event loop and map errors; every reading
of a body and every answer's shape is here, so the CLI and the HTTP API stay the same operations.
"""

import re
from collections.abc import Callable, Mapping
from datetime import datetime, timedelta
from typing import Any, TypeVar

from aftersales.clock import wall
from aftersales.domain.callers import ALL_SCOPES
from aftersales.durations import parse_duration
from aftersales.storage.database_errors import database_errors
from aftersales.worlds import bounds, inspect
from aftersales.worlds.model import CLOCK_MODES, TOKEN_SCOPES, World, parse_instant
from aftersales.worlds.service import ID_PATTERN, Worlds
from aftersales.worlds.world_errors import WorldRequestError

CALLER = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:@-]{0,63}$")  # as `aftersales token issue --caller` accepts
DEFAULT_TTL = "1d"
CREATE_FIELDS = {
    *("from", "clock", "at", "deterministic", "seed", "id", "lease"),
    *("caller", "scopes", "ttl", "tool_descriptions"),
}
T = TypeVar("T")
Texts = Callable[[object], str]  # a body's "tool_descriptions" -> the checked set's stored text (mcp/described.py)


def run(operation: Callable[[], T]) -> T:
    """Run one operation with driver exceptions in the project's words: a database that does not answer is
    ServiceUnavailable, as storage translates it everywhere else, so the admin API never handles SQLAlchemy's."""
    with database_errors():
        return operation()


def create(worlds: Worlds, body: Mapping[str, Any], mcp_url: str, texts: Texts | None = None) -> dict[str, Any]:
    """A new world from the baseline or a dataset file in the datasets folder, and a token bound to it.

    `texts` reads "tool_descriptions" (the web layer's, which knows the tools); without it the field is refused.
    """
    _only(body, CREATE_FIELDS if texts is not None else CREATE_FIELDS - {"tool_descriptions"})
    caller, scopes, ttl = _claims(body)
    clock_mode, at = _clock(body)
    world = worlds.create(
        source=_text(body, "from") or "baseline",  # the service refuses databases and files outside the folder
        clock_mode=clock_mode,
        at=at,
        deterministic=_flag(body, "deterministic"),
        seed=_seed(body),
        world_id=_id(body),
        tool_descriptions=_texts(body, texts),
        lease=_lease(body),
    )
    return _made(worlds, world, caller, scopes, ttl, mcp_url)


def fork(worlds: Worlds, world_id: str, body: Mapping[str, Any], mcp_url: str) -> dict[str, Any]:
    """A new world holding another's current state, and a token bound to it."""
    _only(body, CREATE_FIELDS - {"from", "tool_descriptions"})  # a fork serves what its source serves
    caller, scopes, ttl = _claims(body)
    clock_mode, at = _clock(body)
    world = worlds.fork(
        world_id,
        clock_mode=clock_mode,
        at=at,
        deterministic=_flag(body, "deterministic"),
        seed=_seed(body),
        world_id=_id(body),
        lease=_lease(body),
    )
    return _made(worlds, world, caller, scopes, ttl, mcp_url)


def listing(worlds: Worlds) -> dict[str, Any]:
    """Every world with its size."""
    moment = wall()
    return {"worlds": [world.as_dict(moment, size) for world, size in worlds.all()]}


def show(worlds: Worlds, world_id: str) -> dict[str, Any]:
    """One world."""
    world = worlds.get(world_id)
    return world.as_dict(wall(), worlds.size(world))


def reset(worlds: Worlds, world_id: str) -> dict[str, Any]:
    """Put a world back as it was created."""
    return worlds.reset(world_id).as_dict(wall())


def move_clock(worlds: Worlds, world_id: str, body: Mapping[str, Any]) -> dict[str, Any]:
    """Advance a world's clock by a duration, or set it."""
    _only(body, {"advance", "set"})
    if ("advance" in body) == ("set" in body):
        raise WorldRequestError(
            f"The body names {', '.join(sorted(body)) or 'nothing'}.",
            'A clock is moved by exactly one of "advance" (a duration such as "31m" or "8d") or "set" (an ISO time).',
            'Send {"advance": "31m"} or {"set": "2026-12-09T09:00:00Z"}.',
        )
    if "advance" in body:
        by = _duration(body, "advance")
        if by <= timedelta(0):
            raise WorldRequestError(
                f'"advance" {body["advance"]!r} does not move the clock forward.',
                "A world's clock is advanced by a positive duration; to go back, set it.",
                'Send a positive duration such as "31m", or {"set": ISO-8601} instead.',
            )
        return worlds.advance(world_id, bounds.duration('"advance"', by, body["advance"])).as_dict(wall())
    moment = _instant(body, "set")
    assert moment is not None
    return worlds.set_clock(world_id, moment).as_dict(wall())


def issue_token(worlds: Worlds, world_id: str, body: Mapping[str, Any]) -> dict[str, Any]:
    """Another token bound to the world (another caller, other scopes, another lifetime)."""
    _only(body, {"caller", "scopes", "ttl"})
    caller, scopes, ttl = _claims(body)
    return {"world": world_id, "token": worlds.token(world_id, caller, scopes, ttl), "caller": caller, "scopes": scopes}


def diff(worlds: Worlds, world_id: str, against: str, audit: bool, tables: list[str] | None = None) -> dict[str, Any]:
    """A world against its source or another world (files are the CLI's: the server reads none for a client)."""
    chosen = inspect.checked_tables(tables, audit)
    if against == "source":
        return inspect.against_source(worlds, world_id, audit, chosen)
    if ID_PATTERN.match(against):
        return inspect.against_world(worlds, world_id, against, audit, chosen)
    raise WorldRequestError(
        f"against={against!r} is neither `source` nor a world id.",
        "Over HTTP a world is compared with its source, another world, or a snapshot sent as the body of a POST.",
        "Use ?against=source, ?against=<world id>, or POST the snapshot to this path.",
    )


def diff_snapshot(worlds: Worlds, world_id: str, body: object) -> dict[str, Any]:
    """A world against a snapshot the client sent."""
    return inspect.against_snapshot(worlds, world_id, inspect.checked_snapshot(body, "The body"), "the posted snapshot")


def _made(worlds: Worlds, world: World, caller: str, scopes: list[str], ttl: timedelta, mcp_url: str) -> dict[str, Any]:
    token = worlds.token(world.id, caller, scopes, ttl)
    shown = world.as_dict(wall(), worlds.size(world))
    return shown | {"token": token, "caller": caller, "scopes": scopes, "mcp_url": mcp_url}


def _claims(body: Mapping[str, Any]) -> tuple[str, list[str], timedelta]:
    caller = _text(body, "caller") or "agent"
    if not CALLER.match(caller):
        raise WorldRequestError(
            f'"caller" {caller!r} is not a caller id.',
            "A caller id is 1-64 letters, digits and _ . : @ -, starting with a letter or digit.",
            'Send another "caller", or leave it out for "agent".',
        )
    given = body.get("scopes", list(ALL_SCOPES))
    listed = given.split(",") if isinstance(given, str) else given
    if not isinstance(listed, list) or not all(isinstance(scope, str) for scope in listed):
        listed = [None]
    scopes = sorted({scope.strip() for scope in listed if scope and scope.strip()})
    if not scopes or any(scope not in TOKEN_SCOPES for scope in scopes):
        raise WorldRequestError(
            f'"scopes" {given!r} are not scopes a token can hold.',
            f"Scopes are chosen from {', '.join(TOKEN_SCOPES)}.",
            'Send a list such as ["tickets:read", "tickets:write"], or leave "scopes" out for both tool scopes.',
        )
    ttl = _duration(body, "ttl", DEFAULT_TTL)
    if ttl <= timedelta(0):
        raise WorldRequestError(
            f'"ttl" {body.get("ttl")!r} is not a lifetime.',
            "A token lives at least one second.",
            'Send a duration such as "12h" or "1d".',
        )
    return caller, scopes, bounds.duration('"ttl"', ttl, body.get("ttl", DEFAULT_TTL))


def _clock(body: Mapping[str, Any]) -> tuple[str | None, datetime | None]:
    """ "clock" and "at", in the words of the API (the service's own messages name the command line's options)."""
    mode, at = _text(body, "clock"), _instant(body, "at")
    if mode is not None and mode not in CLOCK_MODES:
        raise _refuse("clock", mode, f"one of {', '.join(CLOCK_MODES)}", '"frozen"')
    if mode == "real" and at is not None:
        raise WorldRequestError(
            '"at" was given with "clock": "real".',
            "A real clock shows the wall clock; only frozen and offset clocks start at a chosen time.",
            'Leave "at" out, or choose "clock": "frozen" or "offset".',
        )
    if mode == "offset" and at is None:
        raise WorldRequestError(
            '"clock": "offset" was given without "at".',
            "An offset clock runs like the wall clock from a chosen start time.",
            'Add "at" with the start time, for example "at": "2026-12-01T09:00:00Z".',
        )
    return mode, at


def _texts(body: Mapping[str, Any], texts: Texts | None) -> str | None:
    """The stored text of the description set the body asks for, or None for the server's own texts."""
    value = body.get("tool_descriptions")
    return None if value is None or texts is None else texts(value)


def _id(body: Mapping[str, Any]) -> str | None:
    chosen = _text(body, "id")
    if chosen is not None and not ID_PATTERN.match(chosen):
        raise _refuse("id", chosen, "a world id (1-24 lowercase letters, digits and hyphens)", '"episode-1"')
    return chosen


def _only(body: Mapping[str, Any], allowed: set[str]) -> None:
    unknown = sorted(set(body) - allowed)
    if unknown:
        raise WorldRequestError(
            f"The body has fields this operation does not take: {', '.join(unknown)}.",
            f"It takes {', '.join(sorted(allowed))}.",
            "Remove or correct those fields (names are case-sensitive) and send it again.",
        )


def _refuse(name: str, value: object, expected: str, example: str) -> WorldRequestError:
    return WorldRequestError(
        f'"{name}" {value!r} is not {expected}.', f'"{name}" takes {expected}.', f'Send it like "{name}": {example}.'
    )


def _text(body: Mapping[str, Any], name: str) -> str | None:
    value = body.get(name)
    if value is not None and not isinstance(value, str):
        raise _refuse(name, value, "text", '"…"')
    return value


def _flag(body: Mapping[str, Any], name: str) -> bool:
    value = body.get(name, False)
    if not isinstance(value, bool):
        raise _refuse(name, value, "true or false", "true")
    return value


def _integer(body: Mapping[str, Any], name: str) -> int | None:
    value = body.get(name)
    if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
        raise _refuse(name, value, "a whole number", "7")
    return value


def _seed(body: Mapping[str, Any]) -> int | None:
    value = _integer(body, "seed")
    return None if value is None else bounds.seed('"seed"', value)


def _lease(body: Mapping[str, Any]) -> timedelta | None:
    """ "lease": how long the world lives (wall time, used or not), then it is dropped; absent: no lease."""
    if body.get("lease") is None:
        return None
    return bounds.duration('"lease"', _duration(body, "lease"), body["lease"])


def _instant(body: Mapping[str, Any], name: str) -> datetime | None:
    text = _text(body, name)
    if text is None:
        return None
    try:
        moment = parse_instant(text)
    except WorldRequestError:
        raise _refuse(name, text, "an ISO 8601 time", '"2026-12-01T09:00:00Z"') from None
    return bounds.instant(f'"{name}"', moment)


def _duration(body: Mapping[str, Any], name: str, default: str | None = None) -> timedelta:
    value = body.get(name, default)
    if not isinstance(value, str | int) or isinstance(value, bool):
        raise _refuse(name, value, "a duration", '"31m"')
    try:
        return parse_duration(value)
    except ValueError:
        raise _refuse(name, value, f"a duration {bounds.DURATIONS} (a number with s, m, h or d)", '"31m"') from None
