"""Does nbgrader autograde's restoring step put the hidden tests back into every grade cell, and name only the
locked cells a student changed?

nbgrader autograde itself on honest notebooks: tests/deliver/test_routes.py.
"""

import copy
import logging

import nbformat
import pytest
from nbgrader.converters import Autograde
from nbgrader.preprocessors import OverwriteCells
from traitlets.config.loader import PyFileConfigLoader

from autograder import KIT_ROOT
from autograder.author.build import master
from autograder.author.release import gradebook_url, register
from autograder.deliver.routes.hidden_tests import RestoreHiddenTests


@pytest.fixture(scope="module")
def stored(mha, tmp_path_factory):
    """A course whose gradebook.db holds mha as nbgrader generate_assignment stores it (the locked cells as the master
    holds them, hidden tests included), with the master and the released notebook: (course, master, release)."""
    course = tmp_path_factory.mktemp("course")
    made = master(mha)
    register(mha, made, course)
    return course, made, nbformat.read(mha.release_dir / mha.notebook_name, as_version=4)


def restore(course, notebook, caplog):
    """The notebook after the step, and the warnings it logged."""
    step = RestoreHiddenTests()
    step.log = logging.getLogger("restore-hidden-tests")
    resources = {"nbgrader": {"notebook": "mha", "assignment": "mha", "db_url": gradebook_url(course)}}
    with caplog.at_level(logging.WARNING, logger="restore-hidden-tests"):
        done, _ = step.preprocess(copy.deepcopy(notebook), resources)
    return done, [r.getMessage() for r in caplog.records if r.name == "restore-hidden-tests"]


def sources(notebook):
    return {cell.get("id"): cell.source for cell in notebook.cells}


@pytest.mark.slow
def test_a_notebook_as_released_gets_its_hidden_tests_back_and_no_warning(stored, caplog):
    """Does every grade cell of the release get the master's hidden tests, with no cell called changed?"""
    course, made, release = stored
    done, warned = restore(course, release, caplog)
    assert warned == []
    assert "### BEGIN HIDDEN TESTS" not in sources(release)["tokenize-tests"]
    locked = {c.id for c in made.cells if c.metadata.get("nbgrader", {}).get("locked")}
    assert {k: v for k, v in sources(done).items() if k in locked} == {
        c.id: c.source for c in made.cells if c.id in locked
    }


@pytest.mark.slow
@pytest.mark.parametrize("cell_id", ["tokenize-tests", "tokenize-check", "selfcheck"])
def test_a_locked_cell_the_student_changed_is_named_and_restored(stored, caplog, cell_id):
    """Does a grade cell, a check cell or the self-check cell a student edited get a checksum warning naming it, and
    the master's source?"""
    course, made, release = stored
    changed = copy.deepcopy(release)
    cell = next(c for c in changed.cells if c.get("id") == cell_id)
    cell.source += "\nprint('mine')"
    done, warned = restore(course, changed, caplog)
    assert len(warned) == 1 and f"Attribute 'checksum' for cell {cell_id} has changed!" in warned[0]
    assert sources(done)[cell_id] == sources(made)[cell_id]


def test_the_course_replaces_only_nbgraders_restoring_step():
    """Does nbgrader_config.py give autograde nbgrader's own steps, in its order, with only OverwriteCells replaced?"""
    config = PyFileConfigLoader("nbgrader_config.py", path=str(KIT_ROOT)).load_config()
    configured = config.Autograde.sanitize_preprocessors
    default = Autograde.class_traits()["sanitize_preprocessors"].default()
    expected = [
        "autograder.deliver.routes.hidden_tests.RestoreHiddenTests"
        if step is OverwriteCells
        else f"nbgrader.preprocessors.{step.__name__}"
        for step in default
    ]
    assert configured == expected
