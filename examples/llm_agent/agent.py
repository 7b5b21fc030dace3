"""The agent: the server's policy prompt as instructions, its tools through pydantic-ai's MCP toolset, the customer.

The toolset is given a fastmcp `Client` built here rather than a URL, because the revision is chosen on the client
(`mode`): a 2026-07-28 version pins the stateless revision, whose questions come back as input_required rounds;
`legacy` makes the initialize handshake (2025-11-25), whose questions are `elicitation/create` requests. The same
elicitation handler answers both. It is always given, so the client declares that it can show forms: a world that
answers its own forms (forms=world) asks only clients that could have shown them.
"""

from dataclasses import dataclass
from pathlib import Path

import httpx2
from fastmcp.client import Client
from fastmcp.client.transports import StreamableHttpTransport
from mcp_types import EmbeddedResource, Implementation, TextContent, TextResourceContents
from pydantic import ValidationError
from pydantic_ai import Agent
from pydantic_ai.exceptions import ModelAPIError
from pydantic_ai.mcp import MCPToolset
from pydantic_ai.usage import RunUsage

from aftersales.testing.brief import Brief, ConversationBrief
from examples.llm_agent.channel import customer_tool
from examples.llm_agent.config import Config, SettingError
from examples.llm_agent.forms import answering
from examples.llm_agent.models import model_for, provider_problem, settings_for

PROMPT = "after_sales_agent"  # the server's instructions for an agent at this desk, with the policy
MODES = {"auto": "auto", "2026-07-28": "2026-07-28", "2025-11-25": "legacy"}  # --protocol -> fastmcp's mode


@dataclass(frozen=True)
class Trial:
    """Where this trial's world, brief and customer are (the harness's variables)."""

    mcp_url: str
    token: str
    brief_file: Path
    customer_url: str | None


@dataclass(frozen=True)
class Served:
    """What the agent ended with: its final answer, what it cost, the revision it spoke."""

    answer: str
    usage: RunUsage
    protocol: str | None
    task_id: str
    trial: int
    descriptions: dict[str, str]  # each server tool's description as the model was shown it (a description set's)


async def serve(config: Config, trial: Trial) -> Served:
    """Serve the trial's customer: one agent run over the trial's MCP server."""
    brief = read_brief(trial.brief_file)
    model = model_for(config, brief)  # before connecting: a missing key stops it here
    if isinstance(brief, ConversationBrief) and trial.customer_url is None:
        raise SettingError("the brief is a conversation's, but AFTERSALES_CUSTOMER_URL is not set")
    forms = brief.customer.forms if isinstance(brief, Brief) else brief.form_answers
    client = Client(
        StreamableHttpTransport(trial.mcp_url, auth=trial.token),
        mode=MODES[config.protocol],
        elicitation_handler=answering(forms),
        timeout=config.timeout,
        client_info=Implementation(name="aftersales-llm-agent", version="1"),
    )
    # A tool's error (a refusal, bad arguments) is shown to the model as the tool's result, so it can act on it;
    # a lost answer (a protocol error) is a retry prompt, for which it has a few tries.
    toolset = MCPToolset(client, tool_error_behavior="failed", max_retries=3)
    headers = {"Authorization": f"Bearer {trial.token}"}
    async with toolset, httpx2.AsyncClient(headers=headers, timeout=config.timeout) as http:
        # A conversation has a customer to talk to; a brief says all there is to know.
        url = trial.customer_url if isinstance(brief, ConversationBrief) else None
        tools = [customer_tool(url, http)] if url else []
        agent = Agent(
            model,
            instructions=await policy_prompt(client),
            toolsets=[toolset],
            tools=tools,
            model_settings=settings_for(config),
        )
        try:
            result = await agent.run(brief.model_dump_json(indent=2))
        except ModelAPIError as problem:
            raise provider_problem(problem, config) from None
        shown = {tool.name: tool.description or "" for tool in await client.list_tools()}
        return Served(result.output, result.usage, client.protocol_version, brief.task_id, brief.trial, shown)


def read_brief(path: Path) -> Brief | ConversationBrief:
    """The trial's brief (AFTERSALES_TASK_FILE): a customer brief or a conversation brief."""
    try:
        text = path.read_text(encoding="utf-8")
        if '"aftersales-conversation-brief/' in text:
            return ConversationBrief.model_validate_json(text)
        return Brief.model_validate_json(text)
    except (OSError, ValidationError) as problem:
        raise SettingError(
            f"AFTERSALES_TASK_FILE {path} is not a brief ({' '.join(str(problem).split())[:200]})"
        ) from None


async def policy_prompt(client: Client[StreamableHttpTransport]) -> str:
    """The server's after_sales_agent prompt as one text: its instructions, then the policy it embeds."""
    prompt = await client.get_prompt(PROMPT)
    texts = []
    for message in prompt.messages:
        content = message.content
        if isinstance(content, TextContent):
            texts.append(content.text)
        elif isinstance(content, EmbeddedResource) and isinstance(content.resource, TextResourceContents):
            texts.append(content.resource.text)
    return "\n\n".join(texts)
