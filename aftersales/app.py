"""The application object: settings plus the database handles every entrypoint shares."""

from dataclasses import dataclass, field
from functools import cached_property

import httpx2
from sqlalchemy import Engine
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session, sessionmaker

from aftersales.metrics import Metrics
from aftersales.security.cursors import SignedCursors
from aftersales.security.issuer_keys import IssuerKeys
from aftersales.security.keys import caller_keys, key_ring
from aftersales.security.payout_keys import AccountCipher
from aftersales.settings import Settings
from aftersales.storage.audit import AuditLog
from aftersales.storage.database import make_engine, make_session_factory
from aftersales.storage.rate_buckets import SharedBuckets
from aftersales.storage.runner import DatabaseRunner, dispose, sessions_here
from aftersales.storage.unit_of_work import SqlUnitOfWork
from aftersales.worlds import context
from aftersales.worlds.routing import WorldRouter
from aftersales.worlds.service import Worlds
from aftersales.worlds.trace import FormAnswerer
from aftersales.worlds.world_errors import UnknownWorld


@dataclass
class App:
    """Everything a request needs; the engine is created on first use, never at import."""

    settings: Settings = field(default_factory=Settings)
    # Answers a world's forms itself, so a scripted customer can stand in for the person; None leaves every question
    # to the client.
    form_answerer: FormAnswerer | None = None
    # How the OAuth issuer is reached; None: over the network (tests put an issuer in memory here).
    issuer_transport: httpx2.AsyncBaseTransport | None = None

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
    def database(self) -> DatabaseRunner:
        """Where the async layers run database work: on the event loop on PostgreSQL, else on a worker thread."""
        settings = self.settings
        backend = make_url(settings.resolved_database_url).get_backend_name()
        if backend == "sqlite":
            return DatabaseRunner(False, settings.sqlite_loop_read_steps, self._current_engine)
        return DatabaseRunner(on_loop=backend == "postgresql" and settings.db_asyncio)

    @cached_property
    def session_factory(self) -> sessionmaker[Session]:
        """Sessions bound to the engine."""
        return make_session_factory(self.engine)

    @cached_property
    def caller_keys(self) -> list[str]:
        """Keys for caller tokens: the first signs, all verify."""
        return caller_keys(self.settings)

    @cached_property
    def issuer_keys(self) -> IssuerKeys | None:
        """The OAuth issuer's signature keys (AFTERSALES_AUTH=oauth), shared by every request; None in signed mode."""
        settings = self.settings
        if settings.auth != "oauth" or settings.oauth_issuer is None:
            return None
        return IssuerKeys(settings.oauth_issuer, settings.oauth_keys_cooldown, self.issuer_transport)

    @cached_property
    def state_keys(self) -> list[str]:
        """Keys sealing requestState: the first seals, all unseal; shared by every replica."""
        return self._strict_ring(self.settings.state_keys, "state_keys")

    @cached_property
    def payout_cipher(self) -> AccountCipher:
        """The cipher payout accounts are stored with: the first key of AFTERSALES_PAYOUT_KEYS seals, all open."""
        return AccountCipher(self._strict_ring(self.settings.payout_keys, "payout_keys"))

    def _strict_ring(self, configured: str | None, name: str) -> list[str]:
        """A ring of 32-byte keys as set (AFTERSALES_<NAME>), else generated and kept in the data dir in development."""
        return key_ring(
            configured,
            env=self.settings.env,
            data_dir=self.settings.data_dir,
            name=name,
            variable=f"AFTERSALES_{name.upper()}",
            strict=True,
        )

    @cached_property
    def cursors(self) -> SignedCursors:
        """Paging cursors, signed with the requestState ring so every replica reads the others' cursors."""
        return SignedCursors(self.state_keys)

    @cached_property
    def audit(self) -> AuditLog:
        """The tool-call audit writer; a world's records go to the world's database."""
        return AuditLog(self.session_factory, self.settings.audit_retention, self._world_sessions)

    @cached_property
    def worlds(self) -> Worlds:
        """The worlds registered in this database, served by this process when a token names one."""
        return Worlds(self.settings, self.engine, self.caller_keys)

    @cached_property
    def router(self) -> WorldRouter:
        """Which world a request runs in (lookups remembered for a second)."""
        return WorldRouter(self.worlds, database=self.database)

    @cached_property
    def rate_buckets(self) -> SharedBuckets | None:
        """The rate buckets every replica shares: on PostgreSQL unless AFTERSALES_RATE_SHARED=false; else None.

        SQLite keeps them in each process: it is one machine's database, and a charge there would be a write on
        every call, reads included, queued behind SQLite's one writer.
        """
        settings = self.settings
        if not settings.rate_shared or make_url(settings.resolved_database_url).get_backend_name() != "postgresql":
            return None
        refills = (
            60 * burst / per_minute
            for burst, per_minute in (
                (settings.rate_read_burst, settings.rate_read_per_minute),
                (settings.rate_write_burst, settings.rate_write_per_minute),
            )
        )
        # A row idle longer than a bucket takes to refill, or than a free answering round lives, is as good as gone.
        return SharedBuckets(self.engine, horizon=max(*refills, settings.state_ttl.total_seconds()))

    @cached_property
    def metrics(self) -> Metrics:
        """This process's tool-call counters."""
        return Metrics()

    def uow(self, write: bool = False, one_statement: bool = False) -> SqlUnitOfWork:
        """A fresh unit of work on the current world's database; `write=True` for use cases that change data,
        `one_statement=True` for a read that is a single statement (it runs outside any transaction).

        Inside `database.read`/`write` on the event loop, its session is on the engine's asyncpg twin.
        """
        world = context.current()
        if world is None:
            factory = sessions_here(self.engine, self.session_factory)
        else:
            engines = self.worlds.engines
            factory = sessions_here(engines.engine(world.location), engines.sessions(world.location))
        return SqlUnitOfWork(factory, write=write, one_statement=one_statement)

    def _current_engine(self) -> Engine:
        """The engine of the current world's database."""
        world = context.current()
        return self.engine if world is None else self.worlds.engines.engine(world.location)

    def close(self) -> None:
        """Write the queued audit records and release database connections."""
        if "audit" in self.__dict__:
            self.audit.close()
        if "worlds" in self.__dict__:
            self.worlds.close()
        if (buckets := self.__dict__.get("rate_buckets")) is not None:
            buckets.close()  # the connections its charges kept
        if "engine" in self.__dict__:
            dispose(self.engine)

    def _world_sessions(self, world_id: str) -> sessionmaker[Session] | None:
        """The session factory of a live world (for its audit records), or None when it is gone."""
        try:
            return self.worlds.engines.sessions(self.router.get(world_id).location)
        except UnknownWorld:
            return None
