"""What can go wrong with worlds; each message says what was wrong, the rule, and what to do next.

WorldError (ValueError: the CLI prints it as one line)   `status` and `kind`: the admin API's answer
├── UnknownWorld         no world by that id: never created, dropped, or expired            404 unknown_world
├── WorldRequestError    options that cannot be read or do not fit together                 400 invalid_request
├── WorldLimitReached    the bound on live worlds                                           409 world_limit_reached
└── WorldBusy            a database still had connections when it had to be copied          503 world_busy
"""


class WorldError(ValueError):
    """A world operation that cannot be done; `str()` is the three-part message."""

    status = 400
    kind = "invalid_request"

    def __init__(self, what: str, rule: str, next_step: str) -> None:
        self.what, self.rule, self.next_step = what, rule, next_step
        super().__init__(f"{what} {rule} {next_step}")


class UnknownWorld(WorldError):
    """The id names no live world."""

    status = 404
    kind = "unknown_world"

    def __init__(self, world_id: str) -> None:
        super().__init__(
            f'There is no world "{world_id}".',
            "Worlds exist from `world create` or `world fork` until they are dropped or expire unused.",
            "List the live worlds with `aftersales world list`, or create one with `aftersales world create`.",
        )


class WorldRequestError(WorldError):
    """The request's options cannot be read or do not fit together."""


class WorldLimitReached(WorldError):
    """Creating another world would pass the configured bound."""

    status = 409
    kind = "world_limit_reached"


class WorldBusy(WorldError):
    """A PostgreSQL database could not be copied because connections stayed open on it."""

    status = 503
    kind = "world_busy"
