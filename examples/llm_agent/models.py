"""The model the agent runs on: a provider's, an OpenAI-compatible endpoint's, or the scripted test model."""

from pydantic_ai.exceptions import (
    ModelAPIError,
    ModelAuthenticationError,
    ModelConnectionError,
    ModelHTTPError,
    ModelNotFoundError,
    ModelTimeoutError,
)
from pydantic_ai.models import Model
from pydantic_ai.settings import ModelSettings

from aftersales.testing.brief import Brief, ConversationBrief
from aftersales.testing.llm import ModelChoice, ModelUnavailable, build
from examples.llm_agent.config import TEST_MODEL, Config, SettingError


def model_for(config: Config, brief: Brief | ConversationBrief) -> Model:
    """The model `config` names; the test model plays the reference solution of the brief's task."""
    if config.model == TEST_MODEL:
        from examples.llm_agent.scripted import scripted_model

        return scripted_model(brief, config.tasks)
    # The harness builds its own models (the LLM customer, the judge) the same way, from AFTERSALES_<ROLE>_*.
    choice = ModelChoice("agent", config.model, config.base_url, config.api_key, config.seed)
    try:
        return build(choice)
    except ModelUnavailable as problem:  # an unknown model or provider, or a key not set
        raise SettingError(f"{problem} (--model / AFTERSALES_AGENT_MODEL is {config.model!r})") from None


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


def _line(problem: Exception) -> str:
    """An exception's message on one line."""
    return " ".join(str(problem).split())
