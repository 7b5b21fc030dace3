"""Who is calling, and what they may do."""

from dataclasses import dataclass

from aftersales.domain.calls import WRITES
from aftersales.domain.errors import PermissionDenied

READ = "tickets:read"
WRITE = "tickets:write"
ALL_SCOPES = (READ, WRITE)


def scope_for(tool: str) -> str:
    """The scope a tool needs: tickets:write for the tools that change what the customer sees, else tickets:read."""
    return WRITE if tool in WRITES else READ


@dataclass(frozen=True)
class Caller:
    """An authenticated caller: the owner of handles and the scope of idempotency keys."""

    id: str
    scopes: frozenset[str]

    def require(self, scope: str, tool: str) -> None:
        """Refuse with a three-part message unless the caller holds `scope`."""
        if scope not in self.scopes:
            held = ", ".join(sorted(self.scopes)) or "none"
            raise PermissionDenied(
                f'Caller "{self.id}" may not use {tool}: its token lacks the scope {scope} (it holds: {held}).',
                f"{tool} needs the {scope} scope.",
                "Do not retry; ask the operator for a token with that scope "
                f"(aftersales token issue --caller {self.id} --scopes {','.join(sorted({*self.scopes, scope}))}).",
            )
