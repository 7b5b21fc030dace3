"""Deterministic stand-ins for the customer's model: pydantic-ai FunctionModels that play by the scripted rules.

`AFTERSALES_CUSTOMER_MODEL=function:aftersales.testing.conversation.stand_in:scripted` runs the LLM customer's
whole path (its prompt, the conversation history, the structured reply, usage in the trace, the report's totals)
with no provider and no key: the function reads the customer back from the prompt and answers the latest agent
message as the scripted customer would after the same conversation, so the same agent gets the same replies.
"""

from typing import Any

from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, ToolCallPart, UserPromptPart
from pydantic_ai.models.function import AgentInfo

from aftersales.testing.conversation.llm_customer import customer_in
from aftersales.testing.conversation.model import Reply
from aftersales.testing.conversation.scripted import ScriptedCustomer

PRELUDE, NOW = "The conversation so far:\n", "\n\nThe agent now says:\n"  # LlmCustomer.resume's framing
UNLIMITED = 1_000_000  # the conversation enforces the turn limit; the stand-in never ends on one
MODEL_REASONS = ("need_met", "refused_and_told", "nothing_left")  # what the model's reply may give as a reason


def agent_messages(messages: list[ModelMessage]) -> list[str]:
    """The agent's messages so far, in order: the user prompts of the model's requests (and, when the engine took
    over part-way, the agent's lines of the conversation it was shown first)."""
    said: list[str] = []
    for message in messages:
        if not isinstance(message, ModelRequest):
            continue
        for part in message.parts:
            if not isinstance(part, UserPromptPart):
                continue
            text = str(part.content)
            if text.startswith(PRELUDE) and NOW in text:
                earlier, text = text.split(NOW, 1)
                said += [line.removeprefix("Agent: ") for line in earlier.splitlines() if line.startswith("Agent: ")]
            said.append(text)
    return said


def scripted_reply(messages: list[ModelMessage], info: AgentInfo) -> Reply:
    """What the scripted customer says to the latest agent message, after the same conversation."""
    customer = ScriptedCustomer(customer_in(info.instructions or ""), UNLIMITED)
    said = agent_messages(messages)
    reply = Reply("")
    for message in said:
        reply = customer.reply(message)
    return reply


def answer(reply: Reply, info: AgentInfo) -> ModelResponse:
    """The model's response: the customer's turn, as a call of the output tool."""
    ended = reply.ended and reply.reason in MODEL_REASONS
    arguments: dict[str, Any] = {
        "message": reply.text,
        "revealed": list(reply.revealed),
        "end": ended,
        "reason": reply.reason if ended else None,
    }
    return ModelResponse(parts=[ToolCallPart(info.output_tools[0].name, arguments)])


def scripted(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Plays the customer by the scripted rules."""
    return answer(scripted_reply(messages, info), info)
