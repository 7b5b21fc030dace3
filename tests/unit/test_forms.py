"""The elicitation forms: their schemas are generated once, and every round gets the same one."""

import copy
from typing import Any

from mcp.server.elicitation import render_elicitation_schema
from pydantic import BaseModel
from pydantic.json_schema import GenerateJsonSchema

from aftersales.mcp import forms
from aftersales.mcp.forms import CancelConfirmForm, ConfirmForm, RefundMethodForm


class CountingSchema(GenerateJsonSchema):
    """A schema generator that counts the schemas it generates."""

    generated = 0

    def generate(self, *args: Any, **kwargs: Any) -> Any:
        CountingSchema.generated += 1
        return super().generate(*args, **kwargs)


def test_a_forms_schema_is_generated_once_however_often_a_round_renders_it(monkeypatch) -> None:
    monkeypatch.setattr(forms, "_SCHEMAS", {})  # an empty cache, whatever ran before in this process
    CountingSchema.generated = 0
    for _ in range(3):
        RefundMethodForm.model_json_schema(schema_generator=CountingSchema)
    assert CountingSchema.generated == 1


def test_every_form_renders_exactly_the_schema_pydantic_generates_for_it() -> None:
    for form in (RefundMethodForm, ConfirmForm, CancelConfirmForm):
        assert form.model_json_schema() == BaseModel.model_json_schema.__func__(form)  # type: ignore[attr-defined]
        assert form.model_json_schema(mode="serialization") == BaseModel.model_json_schema.__func__(  # type: ignore[attr-defined]
            form, mode="serialization"
        )


def test_a_caller_changing_its_rendered_schema_does_not_change_the_next_round() -> None:
    expected = copy.deepcopy(render_elicitation_schema(ConfirmForm))
    first = render_elicitation_schema(ConfirmForm)
    first["properties"]["confirm"]["title"] = "changed by a caller"
    first["required"].append("other")
    assert render_elicitation_schema(ConfirmForm) == expected
