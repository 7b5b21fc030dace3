"""Stand-ins for the customer's model that break its prompt on purpose, so the harness's misses can be shown.

Each is a pydantic-ai FunctionModel function (AFTERSALES_CUSTOMER_MODEL=function:tests.support.customer_models:NAME):
it plays the scripted customer (aftersales.testing.conversation.stand_in), then does one thing a model should not.
"""

from dataclasses import replace

from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models.function import AgentInfo

from aftersales.testing.conversation.llm_customer import customer_in
from aftersales.testing.conversation.stand_in import answer, scripted_reply


def leaks_the_email(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Answers as scripted, and adds the email nobody asked for to every reply."""
    reply = scripted_reply(messages, info)
    email = customer_in(info.instructions or "").knows["email"]
    return answer(replace(reply, text=f"{reply.text} My email is {email}, by the way."), info)


def ends_at_once(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Answers the first question, and ends the conversation saying its need is met."""
    reply = scripted_reply(messages, info)
    return answer(replace(reply, text=f"{reply.text} Thanks, that's all.", ended=True, reason="need_met"), info)
