"""The model the agent runs on: a provider's, an OpenAI-compatible endpoint's, or the scripted test model."""

import os

from pydantic_ai.exceptions import (
    ModelAPIError,
    ModelAuthenticationError,
    ModelConnectionError,
    ModelHTTPError,
    ModelNotFoundError,
    ModelTimeoutError,
    UserError,
)
from pydantic_ai.models import Model, infer_model
from pydantic_ai.settings import ModelSettings

from aftersales.testing.brief import Brief, ConversationBrief
from examples.llm_agent.config import TEST_MODEL, Config, SettingError


def model_for(config: Config, brief: Brief | ConversationBrief) -> Model:
    """The model `config` names; the test model plays the reference solution of the brief's task."""
    if config.model == TEST_MODEL:
        from examples.llm_agent.scripted import scripted_model

        return scripted_model(brief, config.tasks)
    if config.base_url is not None or config.model.startswith("openai:"):
        return _openai_compatible(config.model.removeprefix("openai:"), config)
    try:
        return infer_model(config.model)
    except UserError as problem:  # an unknown model or provider, or its own key variable unset
        raise SettingError(
            f"{_line(problem)} (the model is {config.model!r}: --model / AFTERSALES_AGENT_MODEL)"
        ) from None


def settings_for(config: Config) -> ModelSettings:
    """Temperature 0, the seed (providers that take none ignore it), and the request timeout."""
    return ModelSettings(temperature=0.0, seed=config.seed, timeout=config.timeout)


def provider_problem(problem: ModelAPIError, config: Config) -> SettingError:
    """A provider's failure as the one line that names the setting to look at."""
    where = config.base_url or "the provider"
    if isinstance(problem, ModelTimeoutError):
        return SettingError(
            f"the model at {where} did not answer within {config.timeout:g} s: raise AFTERSALES_AGENT_TIMEOUT "
            "(--timeout), or check that the endpoint is up"
        )
    if isinstance(problem, ModelConnectionError):
        return SettingError(
            f"could not reach the model at {where} ({_line(problem)}): check AFTERSALES_AGENT_BASE_URL "
            f"(or --base-url) and that the endpoint is up"
        )
    if isinstance(problem, ModelAuthenticationError):
        return SettingError(f"{where} refused the API key: check AFTERSALES_AGENT_API_KEY (or the provider's variable)")
    if isinstance(problem, ModelNotFoundError):
        return SettingError(f"{where} has no model {config.model!r}: check --model / AFTERSALES_AGENT_MODEL")
    status = f" {problem.status_code}" if isinstance(problem, ModelHTTPError) else ""
    return SettingError(f"the model at {where} failed{status} ({_line(problem)}): check AFTERSALES_AGENT_MODEL")


def _openai_compatible(name: str, config: Config) -> Model:
    """An OpenAI chat model, on OpenAI or on the endpoint AFTERSALES_AGENT_BASE_URL names."""
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    key = config.api_key or os.environ.get("OPENAI_API_KEY")
    if not key:
        where = f"the endpoint {config.base_url}" if config.base_url else "OpenAI"
        raise SettingError(
            f"no API key for {where}: set AFTERSALES_AGENT_API_KEY (or OPENAI_API_KEY); an endpoint that takes "
            "none accepts any value"
        )
    return OpenAIChatModel(name, provider=OpenAIProvider(base_url=config.base_url, api_key=key))


def _line(problem: Exception) -> str:
    """An exception's message on one line."""
    return " ".join(str(problem).split())
