"""The package's import structure holds: pyproject.toml's import-linter contracts (layers, no circles, tools apart)."""

import logging
from pathlib import Path

import pytest
from importlinter.cli import lint_imports

import aftersales

PYPROJECT = Path(aftersales.__file__).parents[1] / "pyproject.toml"


def test_every_import_keeps_to_the_layers_and_no_modules_import_each_other_in_a_circle(
    capsys: pytest.CaptureFixture[str],
) -> None:
    enabled = [each for each in logging.root.manager.loggerDict.values() if isinstance(each, logging.Logger)]
    enabled = [each for each in enabled if not each.disabled]
    status = lint_imports(str(PYPROJECT), no_cache=True, no_logo=True)
    # import-linter configures logging with the default disable_existing_loggers, which silences every logger that
    # exists by then: the tests after this one in the same process would see none of the project's log lines.
    for each in enabled:
        each.disabled = False
    assert status == 0, capsys.readouterr().out
