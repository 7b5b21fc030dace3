"""The language models the harness runs (the LLM customer, the judge): settings, building one, a preflight, usage.

A role's model is set by AFTERSALES_<ROLE>_MODEL (a pydantic-ai model name such as `openai:gpt-4.1` or
`anthropic:claude-sonnet-4-5`; with AFTERSALES_<ROLE>_BASE_URL, the name of a model behind any OpenAI-compatible
endpoint), its key by AFTERSALES_<ROLE>_API_KEY or the provider's own variable (OPENAI_API_KEY, ...), and its seed by
AFTERSALES_<ROLE>_SEED where the provider takes one; temperature is always 0. `function:module:attribute` names a
pydantic-ai FunctionModel of one's own (a deterministic stand-in, as the tests use). pydantic-ai is the `llm` extra:
it is imported only when a model is built.
"""

import importlib
import os
import socket
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from pydantic_ai.models import Model
    from pydantic_ai.settings import ModelSettings

REACH_TIMEOUT = 5.0  # seconds the preflight waits for the provider's port
FUNCTION = "function:"
INSTALL = "pip install 'aftersales[llm]'"


class ModelUnavailable(ValueError):
    """A model that cannot be used, in one line naming the setting to change."""


@dataclass(frozen=True)
class ModelChoice:
    """One role's model, as its settings give it."""

    role: str  # customer, judge
    model: str
    base_url: str | None = None
    api_key: str | None = None
    seed: int | None = None

    def setting(self, part: str) -> str:
        """The environment variable of one part of this role's settings (MODEL, BASE_URL, API_KEY, SEED)."""
        return f"AFTERSALES_{self.role.upper()}_{part}"

    @classmethod
    def from_env(cls, role: str, model: str | None = None, env: Mapping[str, str] = os.environ) -> "ModelChoice":
        """The role's settings from the environment; `model` (from the command line) wins over the variable."""
        prefix = f"AFTERSALES_{role.upper()}_"
        name = model or env.get(prefix + "MODEL", "")
        if not name.strip():
            raise ModelUnavailable(
                f"no model for the {role}: set {prefix}MODEL to a model name such as openai:gpt-4.1 "
                f"(with {prefix}BASE_URL for an OpenAI-compatible endpoint)"
            )
        seed = env.get(prefix + "SEED")
        if seed is not None and not seed.strip().lstrip("-").isdigit():
            raise ModelUnavailable(f"{prefix}SEED is {seed!r}: set it to a whole number, or leave it unset")
        return cls(
            role,
            name.strip(),
            env.get(prefix + "BASE_URL") or None,
            env.get(prefix + "API_KEY") or None,
            int(seed) if seed is not None else None,
        )

    @property
    def is_function(self) -> bool:
        """Whether this is a FunctionModel of one's own (no provider, no key, no network)."""
        return self.model.startswith(FUNCTION)


def build(choice: ModelChoice) -> "Model":
    """The pydantic-ai model of `choice`; ModelUnavailable (naming the setting) when it cannot be built."""
    try:
        from pydantic_ai.exceptions import UserError
        from pydantic_ai.models import infer_model
        from pydantic_ai.models.function import FunctionModel
        from pydantic_ai.models.openai import OpenAIChatModel
        from pydantic_ai.providers.openai import OpenAIProvider
    except ImportError:
        raise ModelUnavailable(f"{choice.setting('MODEL')} needs the llm extra: {INSTALL}") from None
    if choice.is_function:
        module, _, attribute = choice.model.removeprefix(FUNCTION).partition(":")
        try:
            function = getattr(importlib.import_module(module), attribute)
        except (ImportError, AttributeError, ValueError):
            raise ModelUnavailable(
                f"{choice.setting('MODEL')} is {choice.model!r}, and no function {attribute!r} was found in module "
                f"{module!r}: name one as function:module:attribute"
            ) from None
        return FunctionModel(function, model_name=choice.model)
    try:
        if choice.base_url is not None or choice.model.startswith("openai:"):
            name = choice.model.removeprefix("openai:")
            return OpenAIChatModel(name, provider=OpenAIProvider(base_url=choice.base_url, api_key=_key(choice)))
        if choice.api_key is not None:
            provider = choice.model.partition(":")[0]
            raise ModelUnavailable(
                f"{choice.setting('API_KEY')} is used with openai: models or a {choice.setting('BASE_URL')}; "
                f"for {provider}: set that provider's own key variable instead"
            )
        return infer_model(choice.model)
    except UserError as problem:
        first = str(problem).strip().splitlines()[0] if str(problem).strip() else type(problem).__name__
        raise ModelUnavailable(
            f"{choice.setting('MODEL')} is {choice.model!r}, which cannot be used: {first} "
            f"(or set {choice.setting('API_KEY')})"
        ) from None


def _key(choice: ModelChoice) -> str:
    """The key for OpenAI or an OpenAI-compatible endpoint: the role's, else OPENAI_API_KEY, else refused."""
    key = choice.api_key or os.environ.get("OPENAI_API_KEY")
    if not key:
        where = f"the endpoint {choice.base_url}" if choice.base_url else "OpenAI"
        raise ModelUnavailable(
            f"no API key for {where}: set {choice.setting('API_KEY')} (or OPENAI_API_KEY); an endpoint that takes "
            "none accepts any value"
        )
    return key


def preflight(choice: ModelChoice) -> "Model":
    """Build the model and check its provider's port answers, before any world is made; ModelUnavailable if not."""
    model = build(choice)
    url = None if choice.is_function else model.base_url
    if url:
        parts = urlsplit(url)
        port = parts.port or (443 if parts.scheme == "https" else 80)
        try:
            socket.create_connection((parts.hostname or "", port), timeout=REACH_TIMEOUT).close()
        except OSError as problem:
            where = choice.setting("BASE_URL") if choice.base_url else choice.setting("MODEL")
            raise ModelUnavailable(
                f"the {choice.role}'s model provider at {url} cannot be reached ({problem.strerror or problem}): "
                f"check {where} and the network"
            ) from None
    return model


def settings_for(choice: ModelChoice) -> "ModelSettings":
    """Temperature 0, and the seed where one is set (providers that take no seed ignore it)."""
    settings: ModelSettings = {"temperature": 0.0}
    if choice.seed is not None:
        settings["seed"] = choice.seed
    return settings


@dataclass(frozen=True)
class Usage:
    """What one model reply cost: requests, tokens, and the price in US dollars when it is known."""

    model: str
    prompt_version: str
    requests: int
    input_tokens: int
    output_tokens: int
    cost_usd: str | None  # a decimal as text (exact); None when the provider's price is not known

    def as_json(self) -> dict[str, Any]:
        """The trace's `usage` object."""
        return {
            "model": self.model,
            "prompt_version": self.prompt_version,
            "requests": self.requests,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cost_usd": self.cost_usd,
        }


def usage_of(result: Any, model: str, prompt_version: str) -> Usage:
    """The usage of one pydantic-ai run (an AgentRunResult): its tokens, and its cost when genai-prices knows it."""
    used = result.usage
    cost: Decimal | None = Decimal(0)
    for response in result.new_messages():
        if getattr(response, "kind", None) != "response":
            continue
        try:
            price = response.cost().total_price
        except (AssertionError, LookupError, ValueError):  # an unknown model or provider, or no usage reported
            cost = None
            break
        cost = (cost or Decimal(0)) + Decimal(price)
    return Usage(model, prompt_version, used.requests, used.input_tokens, used.output_tokens, _decimal(cost))


def _decimal(value: Decimal | None) -> str | None:
    return None if value is None else format(value.normalize(), "f")


@dataclass
class Spend:
    """What a run's model replies cost, summed: the report's totals (a replayed reply spends nothing)."""

    requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: Decimal | None = field(default_factory=lambda: Decimal(0))  # None once any reply's price is unknown

    def add(self, usage: "Usage | Spend") -> None:
        """Count one reply's usage, or another spend."""
        self.requests += usage.requests
        self.input_tokens += usage.input_tokens
        self.output_tokens += usage.output_tokens
        cost = usage.cost_usd
        if cost is None or self.cost_usd is None:
            self.cost_usd = None
        else:
            self.cost_usd += Decimal(cost)

    def as_json(self) -> dict[str, Any]:
        """The report's usage object."""
        return {
            "requests": self.requests,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cost_usd": _decimal(self.cost_usd),
        }
