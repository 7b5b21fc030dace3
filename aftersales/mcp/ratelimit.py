"""Per-caller token buckets: read calls and write calls are limited separately, across replicas on PostgreSQL.

Read calls are read-only tools and reads of a resource template (a ticket or an order by id): both read the database
for one caller, so one bucket counts them together and neither is a way around the other's limit. The fixed
resources (the policy text) are served from memory and pass. Buckets are kept per world too: episodes in different
worlds never throttle each other.

A call is charged once, on its first round. The rounds that answer its questions on 2026-07-28 carry a requestState
the SDK's boundary has already verified (it runs outside this middleware, refuses a forged or expired one, and binds
each to the caller, the tool and the arguments), so the limiter takes that state as proof that the call passed the
limit; charging the answer again would let a nearly empty bucket spend each refill on the first round and refuse
the second, for ever. A state can be replayed until it expires, so each call (caller, world, tool, arguments) gets
at most ANSWER_ROUNDS free rounds in a state's lifetime; more are charged like any call.

With `shared` buckets (PostgreSQL, storage/rate_buckets.py) every replica charges the same rows, so a caller's limit
holds across replicas; each charge is one statement, run where tools run their database work (storage.runner). When
the database does not answer, the charge falls back to this process's own bucket: fail open to the per-replica limit,
because refusing every call while the database blinks would stop the work the limit exists to protect, and the
calls let through meet the same database (they fail retryably or succeed) with at most N times the limit.
"""

import hashlib
import json
import logging
import math
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.mcpserver import MCPServer
from mcp.shared.uri_template import UriTemplate

from aftersales.domain.errors import RateLimited, ServiceUnavailable
from aftersales.mcp.caller import current_caller_id
from aftersales.mcp.error_mapping import error_result, protocol_error
from aftersales.mcp.requests import resource_read, tool_call
from aftersales.storage.rate_buckets import SharedBuckets
from aftersales.storage.runner import DatabaseRunner
from aftersales.worlds.context import current_id

log = logging.getLogger(__name__)
T = TypeVar("T")

ANSWER_ROUNDS = 4  # answering rounds one call may have free: a question round or two, with room for asking again
RESOLUTION = 1e-6  # seconds: a bucket counts time to the microsecond, so float noise never refuses a punctual retry
CallKey = tuple[str | None, str, str, str]  # world, caller, tool, digest of the arguments


@dataclass(frozen=True)
class Limit:
    """A sustained rate and a burst."""

    per_minute: int
    burst: int


class Bucket:
    """A token bucket: `burst` tokens, refilled at `per_minute / 60` a second."""

    def __init__(self, limit: Limit, now: float) -> None:
        self.limit, self.tokens, self.updated = limit, float(limit.burst), now

    def take(self, now: float) -> float:
        """Take a token; return 0, or the seconds until one is available."""
        rate = self.limit.per_minute / 60
        self.tokens = min(self.limit.burst, self.tokens + (now - self.updated) * rate)
        self.updated = now
        wait = (1 - self.tokens) / rate
        if wait <= RESOLUTION:
            self.tokens -= 1
            return 0.0
        return wait


class Answers:
    """The free answering rounds each call has had, each call's count kept for one requestState lifetime."""

    def __init__(self, lifetime: float) -> None:
        self._lifetime = lifetime
        self._rounds: dict[CallKey, int] = {}
        self._started: deque[tuple[float, CallKey]] = deque()  # when each counted call had its first free round

    def take(self, key: CallKey, now: float) -> bool:
        """Count one free round of the call `key`; False once it has had ANSWER_ROUNDS in this lifetime."""
        while self._started and self._started[0][0] <= now - self._lifetime:
            del self._rounds[self._started.popleft()[1]]
        rounds = self._rounds.get(key, 0)
        if rounds >= ANSWER_ROUNDS:
            return False
        if rounds == 0:
            self._started.append((now, key))
        self._rounds[key] = rounds + 1
        return True


class RateLimiter:
    """Server middleware: refuse a caller's tools/call or resources/read beyond its read or write limit, retryably.

    A tool call is refused with an isError result; a resource read, which has no such result, with the JSON-RPC
    error resources use for problems the caller can fix.
    """

    def __init__(
        self,
        server: MCPServer,
        read: Limit,
        write: Limit,
        clock: Callable[[], float] | None = None,
        state_ttl: float = 600.0,
        shared: SharedBuckets | None = None,
        database: DatabaseRunner | None = None,
    ) -> None:
        self._server, self._limits = server, {"read": read, "write": write}
        # Read at each call, not bound here, so a test's freezegun moves it too. Shared buckets count wall time, the
        # one clock every replica reads alike; this process's own, a clock no one can set back.
        self._clock = clock or (lambda: time.monotonic())
        self._wall = clock or (lambda: time.time())
        self._shared, self._state_ttl = shared, state_ttl
        self._database = database or DatabaseRunner(on_loop=False)
        self._degraded = False  # whether the last shared charge failed (logged once, not once a call)
        self._kinds: dict[str, str] | None = None
        self._resources: tuple[frozenset[str], list[UriTemplate]] | None = None  # fixed URIs, templates
        self._buckets: dict[tuple[str | None, str, str], Bucket] = {}
        self._answers = Answers(state_ttl)
        self._lock = threading.Lock()

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        """Spend a token for tools/call and for reading a resource template; everything else passes."""
        params = tool_call(ctx)
        if params is not None:
            kind = (await self._tool_kinds()).get(str(params.get("name")))  # unknown tools: the argument gate's
            if (
                kind is not None
                and not await self._free_answer(params)
                and (refusal := await self._spend(kind, "call")) is not None
            ):
                return error_result(refusal).model_dump(by_alias=True, exclude_none=True)
            return await call_next(ctx)
        uri = resource_read(ctx)
        if (
            uri is not None
            and await self._templated(uri)
            and (refusal := await self._spend("read", "resource read")) is not None
        ):
            raise protocol_error(refusal)
        return await call_next(ctx)

    async def _free_answer(self, params: Mapping[str, Any]) -> bool:
        """Whether this round answers the questions of a call already charged, within that call's allowance."""
        if params.get("requestState") is None:  # present only once the SDK has verified it
            return False
        arguments = json.dumps(params.get("arguments"), sort_keys=True, separators=(",", ":"), default=str)
        digest = hashlib.sha256(arguments.encode()).hexdigest()
        key = (current_id(), current_caller_id(), str(params.get("name")), digest)
        world, caller, tool, _ = key
        call, now, lifetime = hashlib.sha256(f"{tool}\0{digest}".encode()).hexdigest(), self._wall(), self._state_ttl
        free = await self._charged_shared(
            lambda shared: shared.answer(world, caller, call, now, lifetime, ANSWER_ROUNDS)
        )
        if free is not None:
            return free
        with self._lock:
            return self._answers.take(key, self._clock())

    async def _spend(self, kind: str, request: str) -> RateLimited | None:
        """Take one of the caller's `kind` tokens in the current world; the refusal when none is left."""
        caller, world, limit, now = current_caller_id(), current_id(), self._limits[kind], self._wall()
        wait = await self._charged_shared(
            lambda shared: shared.take(world, caller, kind, limit.per_minute, limit.burst, now, RESOLUTION)
        )
        if wait is None:
            wait = self._take_here((world, caller, kind))
        return self._refusal(caller, kind, wait, request) if wait > 0 else None

    async def _charged_shared(self, charge: Callable[[SharedBuckets], T]) -> T | None:
        """`charge` on the shared buckets, where the database work runs; None without them or while the database does
        not answer (said once per outage: the limits are this replica's own until it answers again)."""
        if self._shared is None:
            return None
        shared = self._shared
        try:
            result = await self._database.write(lambda: charge(shared))
        except ServiceUnavailable:
            if not self._degraded:
                self._degraded = True
                log.warning(
                    "shared rate buckets unavailable: calls are charged to this replica's own buckets meanwhile"
                )
            return None
        if self._degraded:
            self._degraded = False
            log.warning("shared rate buckets answer again: calls are charged to them again")
        return result

    def _take_here(self, key: tuple[str | None, str, str]) -> float:
        """Take a token from this process's own bucket `key` (world, caller, kind)."""
        now = self._clock()
        with self._lock:
            bucket = self._buckets.get(key)
            if bucket is None:
                bucket = self._buckets[key] = Bucket(self._limits[key[2]], now)
            return bucket.take(now)

    def _refusal(self, caller: str, kind: str, wait: float, request: str) -> RateLimited:
        limit = self._limits[kind]
        # Up to the next tenth, never down: a caller that waits the stated time finds the token there. Rounded to
        # the microsecond first, so 0.30000000000000004 is 0.3 (the bucket forgives that microsecond).
        seconds = math.ceil(round(wait * 10, 5)) / 10
        return RateLimited(
            f'Caller "{caller}" sent more {kind} calls than allowed ({limit.per_minute} a minute, bursts of '
            f"{limit.burst}); this {request} was not run.",
            "Each caller's read calls (read-only tools, and resources read by id such as a ticket or an order) and "
            "write calls are rate-limited separately.",
            f"This is retryable: wait {seconds} seconds, then send the same request again.",
            retry_after=seconds,
        )

    async def _tool_kinds(self) -> dict[str, str]:
        """Each tool's kind from its annotations: read-only tools are reads, the rest writes."""
        if self._kinds is None:
            tools = await self._server.list_tools()
            self._kinds = {
                t.name: "read" if t.annotations is not None and t.annotations.read_only_hint else "write" for t in tools
            }
        return self._kinds

    async def _templated(self, uri: str) -> bool:
        """Whether `uri` reads a resource template (one row by id), not a fixed resource."""
        if self._resources is None:
            fixed = frozenset(str(r.uri) for r in await self._server.list_resources())
            templates = [UriTemplate.parse(t.uri_template) for t in await self._server.list_resource_templates()]
            self._resources = fixed, templates
        fixed, templates = self._resources
        # A fixed resource wins over a template that also matches, as the SDK resolves them.
        return uri not in fixed and any(template.match(uri) is not None for template in templates)
