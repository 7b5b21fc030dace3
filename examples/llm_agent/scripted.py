"""The test model: pydantic-ai's FunctionModel playing the task's reference solution, with no network.

Each response is the next reference step: a call as that tool's call, a `say` step (in a conversation) as a call of
the customer tool; "${name.path}" values come from the earlier results it finds in the message history, as
`aftersales tasks check` takes them from the replies. When the steps are done it answers with the last `say`. It
tests the agent's plumbing (MCP on either revision, forms, the customer channel, retries after a lost answer), and
its token accounting is pydantic-ai's estimate for test models.
"""

from pathlib import Path
from typing import Any

from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from aftersales.testing.brief import Brief, ConversationBrief
from aftersales.testing.loader import TaskError, load, load_file, shipped_tasks
from aftersales.testing.reference import resolve, spoken
from aftersales.testing.tasks import Step, Task
from examples.llm_agent.channel import NAME as CUSTOMER_TOOL
from examples.llm_agent.config import SettingError

DONE = "Thank you, that is everything done."  # the final answer of a reference with nothing said


def scripted_model(brief: Brief | ConversationBrief, tasks: str | None) -> FunctionModel:
    """A FunctionModel that makes the reference's calls of the brief's task, and in a conversation its turns."""
    task = _task(brief.task_id, tasks)
    talking = isinstance(brief, ConversationBrief)
    steps = [step for step in task.reference if talking or step.call is not None]
    said = [step.say for step in task.reference if step.say is not None]

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        calls = [part for message in messages if isinstance(message, ModelResponse) for part in message.tool_calls]
        saved = _saved(steps, calls, messages)
        if len(calls) < len(steps):
            return ModelResponse(parts=[_call(steps[len(calls)], saved)])
        return ModelResponse(parts=[TextPart(spoken(said[-1], saved) if said else DONE)])

    return FunctionModel(respond, model_name=f"reference:{task.id}")


def _call(step: Step, saved: dict[str, Any]) -> ToolCallPart:
    """The tool call that makes one step."""
    if step.say is not None:
        return ToolCallPart(CUSTOMER_TOOL, {"message": spoken(step.say, saved)})
    assert step.call is not None  # a step is a call or a say (Step checks)
    return ToolCallPart(step.call, resolve(step.arguments, saved))


def _saved(steps: list[Step], calls: list[ToolCallPart], messages: list[ModelMessage]) -> dict[str, Any]:
    """The results the steps made so far saved, by name, from the tools' returns in the history."""
    returned = {
        part.tool_call_id: part.content
        for message in messages
        if isinstance(message, ModelRequest)
        for part in message.parts
        if isinstance(part, ToolReturnPart)
    }
    return {
        step.save: returned[call.tool_call_id]
        for step, call in zip(steps, calls, strict=False)
        if step.save and isinstance(returned.get(call.tool_call_id), dict)
    }


def _task(task_id: str, tasks: str | None) -> Task:
    """The brief's task, in the folder given or among the shipped tasks."""
    folder = Path(tasks) if tasks else shipped_tasks()
    try:
        if (folder / f"{task_id}.yaml").is_file():  # a task's file is named after its id: read that one only
            return load_file(folder / f"{task_id}.yaml")
        found = [task for task in load(tasks) if task.id == task_id] if tasks else load(task_id)
    except TaskError as problem:
        raise SettingError(
            f"the test model cannot find task {task_id!r}: {problem} (--tasks / AFTERSALES_AGENT_TASKS)"
        ) from None
    if not found:
        raise SettingError(f"the test model finds no task {task_id!r} in {tasks} (--tasks / AFTERSALES_AGENT_TASKS)")
    return found[0]
