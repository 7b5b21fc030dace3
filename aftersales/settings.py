"""Settings from the environment (prefix AFTERSALES_); nothing is read at import."""

import difflib
from collections.abc import Mapping
from datetime import timedelta
from functools import cached_property
from pathlib import Path
from typing import Annotated, Literal

from pydantic import AfterValidator, BeforeValidator, Field, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from aftersales.domain.policy import THRESHOLDS, Thresholds
from aftersales.durations import parse_duration
from aftersales.paths import shipped, user_data_dir
from aftersales.port_numbers import checked_port

Duration = Annotated[timedelta, BeforeValidator(parse_duration)]
# "~" and relative folders are fixed once, at start-up, so later changes of directory do not move them.
Folder = Annotated[Path, AfterValidator(lambda path: path.expanduser().absolute())]
File = Folder  # a file's path, fixed the same way


class Settings(BaseSettings):
    """Every setting the service reads; see docs/reference.md, "Settings"."""

    model_config = SettingsConfigDict(env_prefix="AFTERSALES_", extra="ignore")

    env: Literal["development", "production"] = "development"
    data_dir: Folder = Field(
        default_factory=user_data_dir, description="Where the embedded database and generated keys live."
    )
    database_url: str | None = Field(default=None, description="SQLAlchemy URL; default sqlite in the data dir.")
    seed_dir: Folder = Field(
        default_factory=lambda: shipped("seed"), description="Folder holding the baseline dataset."
    )
    host: str = "127.0.0.1"
    port: Annotated[int, AfterValidator(checked_port)] = 8000
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = "INFO"
    workers: int = Field(default=1, ge=1, description="Server processes `serve` runs on its one port.")
    pin_cpus: bool = Field(
        default=False, description="Pin each server process (all its threads) to one CPU of those allowed."
    )
    worker_threads: int = Field(default=4, ge=1, description="Threads that run tool calls (and their database work).")
    db_pool_size: int = Field(default=10, ge=1, description="Connections kept open per process.")
    db_max_overflow: int = Field(default=10, ge=0, description="Extra connections allowed under burst.")
    db_pool_timeout: Duration = Field(default=timedelta(seconds=10), description="Wait for a free connection.")
    db_statement_timeout: Duration = Field(default=timedelta(seconds=15), description="PostgreSQL statement limit.")
    db_asyncio: bool = Field(
        default=True,
        description="On PostgreSQL, run the calls' database work on the event loop through the asyncio driver "
        "(asyncpg); false: on worker threads through psycopg.",
    )
    # Off by default: under a mixed load at 16 connections its p99 was worse than the worker thread's (85 to 65 ms)
    # (docs/performance.md, "Database work on the event loop"); 10000 is the bound measured to suit the hot reads.
    sqlite_loop_read_steps: int = Field(
        default=0,
        ge=0,
        description="On SQLite, run a read on the event loop, each statement stopped after this many SQLite "
        "virtual-machine steps and the read run again on a worker thread; 0: every read on a worker thread.",
    )
    allowed_hosts: str = Field(default="", description="Comma-separated Host headers accepted off loopback.")
    allowed_origins: str = Field(default="", description="Comma-separated Origin headers accepted off loopback.")
    rate_read_per_minute: int = Field(
        default=600, ge=1, description="Reads (tools, resources by id) a caller may make a minute."
    )
    rate_read_burst: int = Field(
        default=60, ge=1, description="Reads (tools, resources by id) a caller may make at once."
    )
    rate_write_per_minute: int = Field(default=60, ge=1, description="Write tool calls a caller may make a minute.")
    rate_write_burst: int = Field(default=20, ge=1, description="Write tool calls a caller may make at once.")
    rate_shared: bool = Field(
        default=True,
        description="On PostgreSQL, keep the rate buckets in the database, so a caller's limits hold across replicas "
        "(one statement a call); SQLite, or false, keeps them in each process.",
    )
    audit_retention: Duration = Field(default=timedelta(days=30), description="How long tool-call records are kept.")
    secret_keys: str | None = Field(default=None, description="Comma-separated caller-token keys; first signs.")
    auth: Literal["signed", "oauth"] = Field(
        default="signed",
        description="How /mcp callers authenticate: tokens this server signs, or the access tokens of an OAuth issuer.",
    )
    oauth_issuer: str | None = Field(
        default=None,
        pattern=r"^https?://[^\s/?#]+(/[^\s?#]*)?$",
        description="The authorization server (OAuth issuer URL) whose access tokens are accepted when auth=oauth.",
    )
    oauth_resource: str | None = Field(
        default=None,
        pattern=r"^https?://[^\s/?#]+(/[^\s?#]*)?$",
        description="This server's canonical /mcp URL: the audience (RFC 8707 resource) access tokens must carry.",
    )
    oauth_leeway: Duration = Field(
        default=timedelta(seconds=30),
        ge=timedelta(0),
        le=timedelta(minutes=5),
        description="Clock difference allowed when checking an access token's exp and nbf.",
    )
    oauth_keys_cooldown: Duration = Field(
        default=timedelta(seconds=30),
        ge=timedelta(0),
        description="The least time between two fetches of the issuer's keys for a token naming a key id not held.",
    )
    stdio_caller: str = Field(default="local", description="Caller id of the one local client on stdio.")
    quote_ttl: Duration = Field(default=timedelta(minutes=30), description="How long refund quotes are held.")
    state_keys: str | None = Field(default=None, description="Comma-separated requestState keys; first seals.")
    state_ttl: Duration = Field(default=timedelta(minutes=10), description="How long one input_required round lives.")
    payout_keys: str | None = Field(
        default=None, description="Comma-separated keys sealing payout bank accounts at rest; first seals."
    )
    payout_page_ttl: Duration = Field(
        default=timedelta(minutes=15), gt=timedelta(0), description="How long a bank-account page link works."
    )
    public_url: str | None = Field(
        default=None,
        pattern=r"^https?://[^\s/?#]+(/[^\s?#]*)?$",
        description="The address people open the server's pages at (the bank-account page); default http://host:port.",
    )
    idempotency_ttl: Duration = Field(default=timedelta(hours=24), description="How long idempotency keys are kept.")
    # The shop's thresholds default to the policy's (aftersales.domain.policy.THRESHOLDS).
    confirm_above_minor: int = Field(
        default=THRESHOLDS.confirm_above_minor, ge=0, description="Refunds above this are confirmed by a person."
    )
    review_above_minor: int = Field(
        default=THRESHOLDS.review_above_minor, ge=0, description="Refunds above this go to manual review."
    )
    review_recent_tickets: int = Field(
        default=THRESHOLDS.review_recent_tickets, ge=1, description="Tickets in the review window that trigger review."
    )
    review_window: Duration = Field(default=THRESHOLDS.review_window, description="Window for counting recent tickets.")
    sessions_per_caller: int = Field(default=32, ge=1, description="Open 2025-11-25 sessions one caller may hold.")
    session_idle_timeout: Duration = Field(
        default=timedelta(minutes=10), gt=timedelta(0), description="An unused 2025-11-25 session is closed after this."
    )
    worlds_dir: Folder | None = Field(default=None, description="Where SQLite worlds live; default <data dir>/worlds.")
    worlds_prefix: str | None = Field(
        default=None, pattern=r"^[a-z][a-z0-9_]{0,23}$", description="PostgreSQL world database name prefix."
    )
    worlds_max: int = Field(default=100, ge=1, description="Live worlds at most; one more is refused.")
    worlds_idle_ttl: Duration = Field(
        default=timedelta(days=1), gt=timedelta(0), description="A world unused this long is dropped."
    )
    worlds_engine_idle: Duration = Field(
        default=timedelta(minutes=1), gt=timedelta(0), description="An idle world's connections close after this."
    )
    worlds_open_engines: int = Field(default=16, ge=1, description="World connection pools a process keeps open.")
    worlds_pool_size: int = Field(default=2, ge=1, description="Connections kept per open world pool.")
    worlds_admin: bool | None = Field(
        default=None, description="Serve the worlds admin API at /admin/worlds; default on in development only."
    )
    worlds_datasets_dir: Folder | None = Field(
        default=None,
        description="The only folder whose dataset files the admin API makes worlds from; default <data dir>/datasets.",
    )
    tool_descriptions: File | None = Field(
        default=None,
        description="A tool description set (YAML, `aftersales tools descriptions --export`) served instead of today's "
        "tool texts; worlds made with a set of their own serve theirs.",
    )

    @model_validator(mode="after")
    def _oauth_needs_issuer_and_resource(self) -> "Settings":
        """OAuth mode cannot check a token without knowing whose tokens it takes and which audience they carry."""
        if self.auth == "oauth":
            missing = [name for name in ("oauth_issuer", "oauth_resource") if not getattr(self, name)]
            if missing:
                variables = " and ".join(f"AFTERSALES_{name.upper()}" for name in missing)
                raise ValueError(
                    f"AFTERSALES_AUTH=oauth needs {variables}: the issuer URL whose access tokens are accepted and "
                    "this server's /mcp URL, the audience they must be issued for"
                )
        return self

    @property
    def thresholds(self) -> Thresholds:
        """The policy's thresholds as configured."""
        return Thresholds(
            confirm_above_minor=self.confirm_above_minor,
            review_above_minor=self.review_above_minor,
            review_recent_tickets=self.review_recent_tickets,
            review_window=self.review_window,
        )

    @property
    def page_base_url(self) -> str:
        """Where the server's own pages are opened: the public URL as set, else this bind's address."""
        return (self.public_url or f"http://{self.host}:{self.port}").rstrip("/")

    @property
    def worlds_admin_enabled(self) -> bool:
        """Whether /admin/worlds is served: as set, else in development only."""
        return self.env == "development" if self.worlds_admin is None else self.worlds_admin

    @property
    def worlds_datasets(self) -> Path:
        """The folder the admin API reads dataset files from: as set, else <data dir>/datasets."""
        return self.worlds_datasets_dir or self.data_dir / "datasets"

    @cached_property
    def resolved_database_url(self) -> str:
        """The configured URL, or the SQLite file under the data dir."""
        if self.database_url:
            return self.database_url
        return f"sqlite:///{self.data_dir / 'aftersales.db'}"


# AFTERSALES_* variables that are not settings, each read by something else on purpose: an agent under `aftersales
# eval` (testing/runner.py), the reference LLM agent's own (examples/llm_agent/config.py), the pytest plugin's
# options (testing/plugin.py), the test suite's and the benchmarks' own, docker compose's published port
# (.env.example), and the mcp-remote host block of docs/hosts.md (AFTERSALES_AUTH_HEADER).
NOT_SETTINGS = frozenset(
    {
        "AFTERSALES_MCP_URL",
        "AFTERSALES_TOKEN",
        "AFTERSALES_TASK_FILE",
        "AFTERSALES_CUSTOMER_URL",
        # The harness's language models (aftersales.testing.llm): the LLM customer's and the judge's.
        *(
            f"AFTERSALES_{role}_{part}"
            for role in ("CUSTOMER", "JUDGE")
            for part in ("MODEL", "BASE_URL", "API_KEY", "SEED")
        ),
        # The reference LLM agent (examples/llm_agent).
        "AFTERSALES_AGENT_MODEL",
        "AFTERSALES_AGENT_BASE_URL",
        "AFTERSALES_AGENT_API_KEY",
        "AFTERSALES_AGENT_PROTOCOL",
        "AFTERSALES_AGENT_SEED",
        "AFTERSALES_AGENT_TIMEOUT",
        "AFTERSALES_AGENT_TASKS",
        "AFTERSALES_AGENT_USAGE_LOG",
        "AFTERSALES_TEST_DATABASE_URL",
        "AFTERSALES_TEST_SERVER",
        "AFTERSALES_TEST_URL",
        "AFTERSALES_TEST_ADMIN_TOKEN",
        "AFTERSALES_TEST_POSTGRES_URL",
        "AFTERSALES_UPDATE_SNAPSHOTS",
        "AFTERSALES_BENCH_POSTGRES_URL",
        "AFTERSALES_BENCH_ABLATE",
        "AFTERSALES_PUBLISHED_PORT",
        "AFTERSALES_AUTH_HEADER",
    }
)


def unknown_variables(environ: Mapping[str, str]) -> dict[str, str | None]:
    """AFTERSALES_* variables no setting reads, each with the closest setting's variable (None when none is close)."""
    known = [name.upper() for name in Settings.model_fields]
    unknown: dict[str, str | None] = {}
    for name in sorted(environ):
        upper = name.upper()  # settings are read whatever the case of their names
        if not upper.startswith("AFTERSALES_") or upper in NOT_SETTINGS:
            continue
        field = upper.removeprefix("AFTERSALES_")  # compared without the prefix every name shares
        if field not in known:
            close = difflib.get_close_matches(field, known, n=1)
            unknown[name] = f"AFTERSALES_{close[0]}" if close else None
    return unknown
