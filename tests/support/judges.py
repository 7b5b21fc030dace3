"""A deterministic stand-in for the judge's model (AFTERSALES_JUDGE_MODEL / --judge function:tests.support.judges:said).

It decides statements of one shape, `the agent said "WORDS"`: they hold when an agent turn of the transcript holds
WORDS (case-blind), and its reasoning names that turn.
"""

import re

from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, ToolCallPart, UserPromptPart
from pydantic_ai.models.function import AgentInfo


def said(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Holds when an agent turn says the quoted words."""
    [prompt] = [
        str(part.content)
        for message in messages
        if isinstance(message, ModelRequest)
        for part in message.parts
        if isinstance(part, UserPromptPart)
    ]
    statement = prompt.split("The statement:\n", 1)[1].split("\n", 1)[0]
    words = re.fullmatch(r'the agent said "(.+)"', statement)
    assert words is not None, statement
    turns = [line for line in prompt.splitlines() if re.match(r"#\d+ agent: ", line)]
    found = next((line for line in turns if words.group(1).casefold() in line.casefold()), None)
    reasoning = f"{found.split(':', 1)[0]} says it." if found else "No agent turn says it."
    arguments = {"holds": found is not None, "reasoning": reasoning}
    return ModelResponse(parts=[ToolCallPart(info.output_tools[0].name, arguments)])
