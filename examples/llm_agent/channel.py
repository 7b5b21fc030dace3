"""The agent's one tool of its own: talking to the customer over the trial's channel (AFTERSALES_CUSTOMER_URL).

POST {"message"} with the trial's bearer token answers {"reply", "ended", "reason", "turn", "turns_left"}; a
refusal is {"error", "error_description"} (what was wrong, the rule, what to do), which the model is shown as the
tool's failure.
"""

from typing import Any

import httpx2
from pydantic_ai import Tool
from pydantic_ai.exceptions import ToolFailed

NAME = "say_to_customer"


def customer_tool(url: str, http: httpx2.AsyncClient) -> Tool[Any]:
    """The tool that says one message to the customer and returns their reply."""

    async def say_to_customer(message: str) -> str:
        """Say one message to the customer and get their reply: the only way to reach them.

        Ask for what you need (order number, which item, what happened, what they want, whether to go ahead), and
        tell them the outcome: the ticket number, the refund, or why the policy refuses. They end the conversation
        when their need is met or refused and told; after that, write nothing more and give your final answer.
        """
        response = await http.post(url, json={"message": message})
        body = _json(response)
        if response.status_code != 200:
            status = f"The customer channel answered {response.status_code}."
            raise ToolFailed(str(body.get("error_description") or status))
        reply = str(body.get("reply", ""))
        if body.get("ended"):
            return f"{reply}\n[The customer has ended the conversation ({body.get('reason')}). Give your final answer.]"
        return reply

    return Tool(say_to_customer, name=NAME)


def _json(response: httpx2.Response) -> dict[str, Any]:
    """The body as a JSON object, or an empty one."""
    try:
        body = response.json()
    except ValueError:
        return {}
    return body if isinstance(body, dict) else {}
