"""The package's import structure holds: pyproject.toml's import-linter contracts (layers, no circles, tools apart)."""

from pathlib import Path

import pytest
from importlinter.cli import lint_imports

import aftersales

PYPROJECT = Path(aftersales.__file__).parents[1] / "pyproject.toml"


def test_every_import_keeps_to_the_layers_and_no_modules_import_each_other_in_a_circle(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status = lint_imports(str(PYPROJECT), no_cache=True, no_logo=True)
    assert status == 0, capsys.readouterr().out
