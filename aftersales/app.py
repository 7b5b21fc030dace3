"""The application object: settings plus the database handles every entrypoint shares."""

from dataclasses import dataclass, field
from functools import cached_property

from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from aftersales.mcp.metrics import Metrics
from aftersales.security.keys import key_ring
from aftersales.settings import Settings
from aftersales.storage.audit import AuditLog
from aftersales.storage.database import make_engine, make_session_factory
from aftersales.storage.unit_of_work import UnitOfWork


@dataclass
class App:
    """Everything a request needs; the engine is created on first use, never at import."""

    settings: Settings = field(default_factory=Settings)

    @cached_property
    def engine(self) -> Engine:
        """The database engine."""
        settings = self.settings
        return make_engine(
            settings.resolved_database_url,
            statement_timeout_ms=int(settings.db_statement_timeout.total_seconds() * 1000),
            pool_size=settings.db_pool_size,
            max_overflow=settings.db_max_overflow,
            pool_timeout=settings.db_pool_timeout.total_seconds(),
        )

    @cached_property
    def session_factory(self) -> sessionmaker[Session]:
        """Sessions bound to the engine."""
        return make_session_factory(self.engine)

    @cached_property
    def caller_keys(self) -> list[str]:
        """Keys for caller tokens: the first signs, all verify."""
        return key_ring(
            self.settings.secret_keys,
            env=self.settings.env,
            data_dir=self.settings.data_dir,
            name="secret_keys",
            variable="AFTERSALES_SECRET_KEYS",
        )

    @cached_property
    def state_keys(self) -> list[str]:
        """Keys sealing requestState: the first seals, all unseal; shared by every replica."""
        return key_ring(
            self.settings.state_keys,
            env=self.settings.env,
            data_dir=self.settings.data_dir,
            name="state_keys",
            variable="AFTERSALES_STATE_KEYS",
            strict=True,
        )

    @cached_property
    def audit(self) -> AuditLog:
        """The tool-call audit writer."""
        return AuditLog(self.session_factory, self.settings.audit_retention)

    @cached_property
    def metrics(self) -> Metrics:
        """This process's tool-call counters."""
        return Metrics()

    def uow(self, write: bool = False) -> UnitOfWork:
        """A fresh unit of work; `write=True` for use cases that change data."""
        return UnitOfWork(self.session_factory, write=write)

    def close(self) -> None:
        """Write the queued audit records and release database connections."""
        if "audit" in self.__dict__:
            self.audit.close()
        if "engine" in self.__dict__:
            self.engine.dispose()
