"""Do the two module paths that outlive a release still give their callers what they import?

A master notebook's hidden cells import autograder.deliver.nbgrader, and gradebook.db
keeps them as they were built; instructors' copies of the GitHub Classroom workflow import
autograder.deliver.classroom, and run against a kit of any age. The code lives in
routes/; these two paths re-export it.
"""

import importlib
import re
from pathlib import Path

import pytest

from autograder import KIT_ROOT
from autograder.author.notebook import hidden_test_source
from autograder.deliver.routes import classroom, nbgrader
from tests.test_layout import has_logic

# Every name these paths have been imported for: the builder's hidden cells and the workflow
# template, at every commit of the kit so far.
LASTING = {
    "autograder.deliver.nbgrader": {"grade_in_notebook": nbgrader.grade_in_notebook},
    "autograder.deliver.classroom": {"report_to_github": classroom.report_to_github},
}
TEMPLATE = KIT_ROOT / "autograder" / "deliver" / "templates" / "github-classroom.yml"


def kit_imports(text: str) -> set[tuple[str, str]]:
    """Each (module, name) a text imports from the kit with ``from autograder... import name``."""
    return set(re.findall(r"from (autograder(?:\.\w+)+) import (\w+)", text))


@pytest.mark.parametrize("path", LASTING)
def test_each_lasting_path_gives_the_same_functions_as_routes(path):
    """Does each old path hold the very functions routes/ defines, under the names its callers import, and only
    those (a re-export, with no code of its own to drift)?"""
    module = importlib.import_module(path)
    assert not has_logic(Path(module.__file__).read_text())
    assert sorted(module.__all__) == sorted(LASTING[path])
    for name, function in LASTING[path].items():
        assert getattr(module, name) is function


def test_the_hidden_cells_import_the_lasting_path(mha):
    """Does every hidden cell the builder writes import its function from autograder.deliver.nbgrader, a name kept
    there (so that gradebooks built before and after agree, and a kernel's kit of another age refuses with the fix)?"""
    imported = set().union(*(kit_imports(hidden_test_source(mha, name)) for name in mha.points))
    assert imported == {("autograder.deliver.nbgrader", "grade_in_notebook")}
    namespace: dict = {}
    exec("from autograder.deliver.nbgrader import grade_in_notebook", namespace)
    assert namespace["grade_in_notebook"] is nbgrader.grade_in_notebook


def test_the_classroom_workflow_imports_the_lasting_path():
    """Does the workflow template import only names autograder.deliver.classroom keeps, so that copies of any age
    work with a kit of any age?"""
    assert kit_imports(TEMPLATE.read_text()) == {("autograder.deliver.classroom", "report_to_github")}
