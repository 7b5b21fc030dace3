"""tests/unit mirrors the package: aftersales/<path>/<module>.py is tested in tests/unit/<path>/test_<module>.py."""

from pathlib import Path

from tests.support import ROOT

UNIT = ROOT / "tests" / "unit"
# Tests of the repository's own files rather than of one module: the deployment files, the docs, the host
# configurations in docs/hosts.md, the import structure, this layout, and the test session's own tidiness and warm-up.
OF_THE_REPOSITORY = {
    "test_deployment_files.py",
    "test_docs_links.py",
    "test_host_snippets.py",
    "test_import_structure.py",
    "test_layout.py",
    "test_leftovers.py",
    "test_warm_up.py",
}


def module_of(test_file: Path) -> Path:
    """The package path a unit test file stands for: tests/unit/a/b/test_c.py is aftersales/a/b/c."""
    relative = test_file.relative_to(UNIT)
    return ROOT / "aftersales" / relative.parent / relative.name.removeprefix("test_").removesuffix(".py")


def test_every_unit_test_file_is_named_after_the_module_it_tests_at_the_same_path():
    strays = [
        str(path.relative_to(UNIT))
        for path in sorted(UNIT.rglob("test_*.py"))
        if not (path.parent == UNIT and path.name in OF_THE_REPOSITORY)
        and not (module_of(path).with_suffix(".py").is_file() or module_of(path).is_dir())
    ]
    assert strays == [], f"name these after the module they test, at its path under aftersales/: {strays}"


def test_the_repositorys_own_tests_are_still_there_and_each_test_folder_is_a_package():
    assert {path.name for path in UNIT.glob("test_*.py")} >= OF_THE_REPOSITORY
    folders = {path.parent for path in UNIT.rglob("test_*.py")}
    assert [str(f.relative_to(UNIT)) for f in sorted(folders) if not (f / "__init__.py").is_file()] == []
