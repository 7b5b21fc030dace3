"""The elicitation forms: their schemas are generated once, every round gets the same one, and an answer must fit it."""

import copy
from typing import Any

import pytest
from mcp.server.elicitation import render_elicitation_schema
from pydantic import BaseModel
from pydantic.json_schema import GenerateJsonSchema

from aftersales.mcp import forms
from aftersales.mcp.forms import AnswerRefused, CancelConfirmForm, ConfirmForm, Form, RefundMethodForm
from tests.support.clients import leaks


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


def refusal(form: type[Form], answer: Any) -> str:
    """The words `form` refuses `answer` with (the test fails if it takes it)."""
    with pytest.raises(AnswerRefused) as refused:
        form.model_validate(answer)
    return str(refused.value)


@pytest.mark.parametrize("answer", ["yes", 1, "on", "true", "false", 0, None, 1.0, ["true"]], ids=repr)
def test_a_tick_box_takes_no_answer_but_a_json_boolean(answer: Any) -> None:
    for form in (ConfirmForm, CancelConfirmForm):
        text = refusal(form, {"confirm": answer})
        assert text.startswith(f"{AnswerRefused.LEAD}: (1) confirm: received ") and "it must be a boolean" in text
        assert "Nothing was changed." in text and "asked again" in text and leaks(text) == []
    assert ConfirmForm.model_validate({"confirm": True}).confirm is True
    assert CancelConfirmForm.model_validate({"confirm": False}).confirm is False


@pytest.mark.parametrize("answer", ["cash", "Store_Credit", " store_credit", "store_credit\n", "", 1, None, True])
def test_a_choice_takes_only_one_of_the_values_it_lists_exactly_as_written(answer: Any) -> None:
    text = refusal(RefundMethodForm, {"refund_method": answer})
    assert "(1) refund_method: received " in text and "the allowed values are original_payment, store_credit" in text
    assert RefundMethodForm.model_validate({"refund_method": "store_credit"}).refund_method == "store_credit"


def test_an_answer_without_a_field_the_form_requires_or_with_one_it_does_not_have_is_refused() -> None:
    assert "(1) confirm: missing; it is required." in refusal(ConfirmForm, {})
    extra = refusal(ConfirmForm, {"confirm": True, "refund_method": "store_credit"})
    assert "(1) refund_method: not a field of this form; the accepted fields are confirm." in extra
    both = refusal(RefundMethodForm, {"refund_method": "cash", "confirm": "yes"})
    assert "(1) confirm: not a field of this form" in both and "(2) refund_method: received " in both


def test_every_form_refuses_an_answer_of_another_json_type_for_each_field_of_the_schema_it_sends() -> None:
    kinds = {"boolean": "yes", "string": 1, "integer": "1", "number": "1"}
    for form in Form.__subclasses__():
        for name, field in render_elicitation_schema(form)["properties"].items():
            assert f"(1) {name}: received " in refusal(form, {name: kinds[field["type"]]}), (form, name)
