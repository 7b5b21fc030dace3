"""Start-up failures a person can fix, each told in one line instead of a traceback."""

import errno

from pydantic import ValidationError
from sqlalchemy.exc import ArgumentError, InterfaceError, NoSuchModuleError, OperationalError

from aftersales.cli.console import shown_url


class StartupError(Exception):
    """The command cannot start; the message says what was wrong and what to change."""


def settings_problem(error: ValidationError) -> str:
    """Each refused setting named by its environment variable, with the value received and the rule."""
    problems = []
    for detail in error.errors():
        name = f"AFTERSALES_{str(detail['loc'][0]).upper()}" if detail["loc"] else "a setting"
        rule = detail["msg"].removeprefix("Value error, ")
        problems.append(f"{name}={detail['input']!r} is not accepted: {rule}")
    return "; ".join(problems)


def database_problem(error: Exception, url: str) -> str:
    """A database that cannot be used, with the driver's own first line and where to look."""
    if isinstance(error, ArgumentError | NoSuchModuleError):
        return (
            f"AFTERSALES_DATABASE_URL is not a database URL aftersales can use ({error}); for example "
            "postgresql+psycopg://user:password@host:5432/aftersales or sqlite:////absolute/path/aftersales.db"
        )
    cause = getattr(error, "orig", None) or error
    first = next((line.strip() for line in str(cause).splitlines() if line.strip()), type(cause).__name__)
    return (
        f"the database at {shown_url(url)} cannot be used: {first}. Check AFTERSALES_DATABASE_URL and that the "
        "database server is running and reachable."
    )


def bind_problem(error: OSError, host: str, port: int) -> str:
    """A port or address that cannot be listened on."""
    if error.errno == errno.EADDRINUSE:
        return (
            f"port {port} on {host} is already in use (is another server running?). Stop it, or choose another "
            "port with --port or AFTERSALES_PORT."
        )
    if error.errno in (errno.EACCES, errno.EPERM):
        return f"no permission to listen on port {port}; choose a port above 1023 with --port or AFTERSALES_PORT."
    return (
        f"cannot listen on {host}:{port} ({error.strerror or error}). AFTERSALES_HOST (or --host) must be an address "
        "of this machine, for example 127.0.0.1 or 0.0.0.0."
    )


DATABASE_ERRORS = (OperationalError, InterfaceError, ArgumentError, NoSuchModuleError)
