"""Does each route to students and instructors work as its users run it?

nbgrader (autograde, the gradebook import, its feedback), the Gradescope bundle, CI
(JUnit, --fail-under, the GitHub Classroom workflow), and the students' self-checks.
"""

import csv
import json
import os
import shutil
import subprocess
import sys
import zipfile
from xml.etree import ElementTree

import pytest
import yaml

from autograder import KIT_ROOT
from autograder.author.build import master_path
from autograder.author.notebook import notebook_text
from autograder.author.release import nbgrader_env, run_nbgrader
from autograder.author.samples import sample_notebook, sample_path

KIT = [sys.executable, "-m", "autograder"]


def run(command, **kwargs):
    return subprocess.run(command, capture_output=True, text=True, cwd=kwargs.pop("cwd", KIT_ROOT), **kwargs)


@pytest.fixture(scope="module")
def notebooks(mha, tmp_path_factory):
    """A correct, a partly wrong and a blank notebook, as students hand them in, and one whose split_heads is
    wrong under a right layer (error carried forward)."""
    folder = tmp_path_factory.mktemp("class")
    (folder / "ada.ipynb").write_text(notebook_text(sample_notebook(mha, None)))
    shutil.copy(sample_path(mha), folder / "ben.ipynb")
    shutil.copy(mha.release_dir / mha.notebook_name, folder / "cy.ipynb")
    shutil.copy(sample_path(mha, "split_heads_without_transpose"), folder / "dee.ipynb")
    return folder


def new_course(mha, root):
    """An nbgrader course with the assignment's master notebook (the build makes it under source/)."""
    (root / "source" / mha.name).mkdir(parents=True)
    shutil.copy(master_path(mha), root / "source" / mha.name / mha.notebook_name)
    return root


@pytest.fixture(scope="module")
def course(mha, notebooks, tmp_path_factory):
    """An nbgrader course with the assignment generated and the notebooks autograded."""
    root = new_course(mha, tmp_path_factory.mktemp("course"))
    run_nbgrader(mha, root)
    for notebook in notebooks.glob("*.ipynb"):
        target = root / "submitted" / notebook.stem / mha.name
        target.mkdir(parents=True)
        shutil.copy(notebook, target / mha.notebook_name)
    done = run(
        [sys.executable, "-m", "nbgrader", "autograde", mha.name, f"--CourseDirectory.root={root}"], env=nbgrader_env()
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return root


@pytest.mark.slow
def test_nbgrader_autograde_gives_the_kit_points(mha, mha_grader, notebooks, course):
    """Do nbgrader autograde and the grade command give each name the same points?"""
    from nbgrader.api import Gradebook

    ours = {}
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        for notebook in sorted(notebooks.glob("*.ipynb")):
            ours[notebook.stem] = mha_grader.grade(notebook).by_name()
            for name in mha.graded:
                theirs = gradebook.find_grade(f"{name}-tests", "mha", mha.name, notebook.stem).score
                assert theirs == pytest.approx(float(ours[notebook.stem][name][0]), abs=1e-3), (notebook.stem, name)
    assert ours["cy"]["tokenize"][0] == 0  # the blank one: the comparison covered a zero too


@pytest.mark.slow
def test_nbgrader_carries_errors_forward(mha, course):
    """In nbgrader's kernel, does the layer of a notebook whose split_heads is wrong earn all its points, its
    hidden cell saying that the reference's split_heads stood in?"""
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        assert gradebook.find_grade("MultiHeadAttention-tests", "mha", mha.name, "dee").score == 8
        assert gradebook.find_grade("split_heads-tests", "mha", mha.name, "dee").score < 3
    graded = json.loads((course / "autograded" / "dee" / mha.name / mha.notebook_name).read_text())
    outputs = json.dumps([cell.get("outputs", []) for cell in graded["cells"]])
    assert "MultiHeadAttention graded with the reference's split_heads, since yours fails its own checks" in outputs


@pytest.mark.slow
def test_class_points_reach_the_gradebook_and_nbgraders_feedback(mha, notebooks, tmp_path):
    """After grade-all and `gradebook`, does `nbgrader export` list each student's points, and generate_feedback work?"""
    out = tmp_path / "out"
    done = run(KIT + ["grade-all", str(notebooks), "-a", "mha", "--out", str(out), "--jobs", "1", "--quiet"])
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    fresh = new_course(mha, tmp_path / "course")  # a gradebook without the assignment yet
    done = run(KIT + ["gradebook", str(out), "-a", "mha", "--course", str(fresh)])
    assert done.returncode == 0, done.stderr
    exported = run(
        [
            sys.executable,
            "-m",
            "nbgrader",
            "export",
            f"--CourseDirectory.root={fresh}",
            f"--to={tmp_path / 'grades.csv'}",
        ],
        env=nbgrader_env(),
    )
    assert exported.returncode == 0, exported.stderr
    with open(tmp_path / "grades.csv") as file:
        rows = {row["student_id"]: row for row in csv.DictReader(file)}
    for student in ("ada", "ben", "cy"):
        ours = json.loads((out / "students" / student / "results.json").read_text())["score"]
        assert float(rows[student]["raw_score"]) == pytest.approx(ours, abs=1e-3)
    feedback = run(
        [sys.executable, "-m", "nbgrader", "generate_feedback", "mha", f"--CourseDirectory.root={fresh}"],
        env=nbgrader_env(),
    )
    assert feedback.returncode == 0, feedback.stderr[-2000:]
    page = (fresh / "feedback" / "ben" / "mha" / "mha.html").read_text()
    assert "PositionalEncoding: " in page and "of 4 points" in page


@pytest.mark.slow
def test_the_gradebook_keeps_nbgraders_own_scores(mha, notebooks, course, tmp_path):
    """Does the import leave scores nbgrader autograde wrote, unless --overwrite?"""
    from nbgrader.api import Gradebook

    out = tmp_path / "out"
    (tmp_path / "class").mkdir()
    shutil.copy(sample_path(mha), tmp_path / "class" / "cy.ipynb")  # cy's notebook was blank when autograded
    assert (
        run(
            KIT + ["grade-all", str(tmp_path / "class"), "-a", "mha", "--out", str(out), "--jobs", "1", "--quiet"]
        ).returncode
        == 0
    )
    done = run(KIT + ["gradebook", str(out), "-a", "mha", "--course", str(course)])
    assert done.returncode == 0 and "kept the scores already in the gradebook of 1 students" in done.stdout
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        assert gradebook.find_submission(mha.name, "cy").score == 0
    assert run(KIT + ["gradebook", str(out), "-a", "mha", "--course", str(course), "--overwrite"]).returncode == 0
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        assert gradebook.find_submission(mha.name, "cy").score == pytest.approx(37.371429, abs=1e-3)


def gradescope_tree(mha, tmp_path, *options):
    bundle = tmp_path / "mha.zip"
    assert run(KIT + ["gradescope", "-a", "mha", "--out", str(bundle), *options]).returncode == 0
    root = tmp_path / "autograder"
    with zipfile.ZipFile(bundle) as archive:
        names = archive.namelist()
        archive.extractall(root / "source")
    assert {"setup.sh", "run_autograder"} <= set(names)
    assert not [n for n in names if n.startswith(("kit/tests", "kit/source", "kit/solutions/attention_numpy"))]
    assert "kit/release/mha/mha.ipynb" in names and "kit/requirements-grading.txt" in names
    assert run(["bash", "-n", str(root / "source" / "setup.sh")]).returncode == 0
    os.chmod(root / "source" / "run_autograder", 0o755)
    (root / "submission").mkdir()
    return root


def run_gradescope(root):
    env = {**os.environ, "AUTOGRADER_ROOT": str(root), "KIT_PYTHON": sys.executable, "PYTHONDONTWRITEBYTECODE": "1"}
    done = run([str(root / "source" / "run_autograder")], env=env, cwd=root)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads((root / "results" / "results.json").read_text())


@pytest.mark.slow
def test_gradescope_bundle_grades_a_fake_tree(mha, tmp_path):
    """Does run_autograder write results.json as Gradescope reads it, with no note about the course's demo cells?"""
    root = gradescope_tree(mha, tmp_path)
    shutil.copy(sample_path(mha), root / "submission" / "mha.ipynb")
    results = run_gradescope(root)
    assert 0 < results["score"] < results["extra_data"]["max_score"]
    assert results["extra_data"]["notes"] == []  # the demo cells are the release's own: skipped, not run
    assert results["execution_time"] > 0 and "after the due date" in results["output"]
    hidden = [t for t in results["tests"] if t["extra_data"]["kind"] == "hidden"]
    assert {t["visibility"] for t in hidden} == {"after_due_date"}
    assert {t["visibility"] for t in results["tests"] if t["extra_data"]["kind"] == "visible"} == {"visible"}


@pytest.mark.slow
def test_gradescope_setup_checks_the_host_and_caches_the_reference(mha, tmp_path):
    """Does setup.sh's last step (doctor in the bundle's kit) grade the reference there, cache it, and lock the kit?"""
    root = gradescope_tree(mha, tmp_path)
    setup = (root / "source" / "setup.sh").read_text()
    check = setup[setup.index("cd /autograder/source/kit") :]  # the steps after the installs
    check = check.replace("/autograder/venv/bin/python", sys.executable).replace("/autograder", str(root))
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "PYTHONPATH": str(root / "source" / "kit")}
    done = run(["bash", "-euo", "pipefail", "-c", check], env=env, cwd=root)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "mha: the reference gets full marks through the sandbox" in done.stdout and "ready to grade" in done.stdout
    assert "attention_numpy" not in done.stdout  # the bundle holds its one assignment
    assert list((root / "source" / "kit" / "build" / "cache").glob("mha-*.npz"))
    assert (root / "source" / "kit").stat().st_mode & 0o077 == 0


@pytest.mark.slow
def test_gradescope_can_show_the_score_at_once(mha, tmp_path):
    """With --show-score, is every test visible (so Gradescope shows the total) and no hidden detail in the file?"""
    root = gradescope_tree(mha, tmp_path, "--show-score")
    shutil.copy(sample_path(mha), root / "submission" / "mha.ipynb")
    results = run_gradescope(root)
    assert {t["visibility"] for t in results["tests"]} == {"visible"}
    hidden = [t for t in results["tests"] if t["extra_data"]["kind"] == "hidden"]
    assert all(t["output"] == "The details of this hidden check are not shown here." for t in hidden)
    assert "37.37 of 40" in results["output"]


def test_gradescope_gets_a_result_for_an_empty_submission(mha, tmp_path):
    """With nothing gradable submitted, is there still a results.json that says why (the student's zero)?"""
    from autograder.deliver.gradescope import bundle_files

    root = tmp_path / "autograder"
    for name, data in bundle_files(mha).items():
        (root / "source" / name).parent.mkdir(parents=True, exist_ok=True)
        (root / "source" / name).write_bytes(data)
    (root / "submission").mkdir()
    (root / "submission" / "notes.txt").write_text("I ran out of time")
    env = {**os.environ, "AUTOGRADER_ROOT": str(root), "KIT_PYTHON": sys.executable, "PYTHONDONTWRITEBYTECODE": "1"}
    done = run(["bash", str(root / "source" / "run_autograder")], env=env, cwd=root)
    assert done.returncode == 0
    results = json.loads((root / "results" / "results.json").read_text())
    assert results["score"] == 0 and "could not be graded" in results["output"]


@pytest.mark.slow
def test_junit_and_fail_under(mha, tmp_path):
    """Does grade write JUnit beside results.json, and fail under --fail-under?"""
    done = run(KIT + ["grade", str(sample_path(mha)), "--out", str(tmp_path), "--fail-under", "95"])
    assert done.returncode == 1 and "under --fail-under 95" in done.stderr
    results = json.loads((tmp_path / "results.json").read_text())
    suite = ElementTree.parse(tmp_path / "junit.xml").getroot()
    cases = suite.findall("testcase")
    hidden = [t for t in results["tests"] if t["extra_data"]["kind"] == "hidden"]
    assert len(cases) == len(hidden)
    failed = [case for case in cases if case.find("failure") is not None]
    assert len(failed) == sum(t["score"] < t["max_score"] for t in hidden) > 0
    assert all(case.get("classname") == "mha.PositionalEncoding" for case in failed)
    assert run(KIT + ["grade", str(sample_path(mha)), "--out", str(tmp_path), "--fail-under", "50"]).returncode == 0


def _workflow_default(value: str) -> str:
    """The default of `${{ vars.NAME || 'default' }}`: what a runner gets with no variable set."""
    return value.split("'")[1]


@pytest.mark.slow
def test_github_workflow_runs_what_it_says(mha, tmp_path):
    """Do the workflow's Grade and Points steps work as written, under sudo, and keep hidden details back?"""
    from .test_classroom import reporter_reads

    workflow = yaml.safe_load((KIT_ROOT / "autograder" / "deliver" / "templates" / "github-classroom.yml").read_text())
    steps = workflow["jobs"]["run-autograding-tests"]["steps"]
    grade = next(step for step in steps if step.get("name") == "Grade")
    points = next(step for step in steps if step.get("name") == "Points for GitHub Classroom")
    # The runner's workspace: kit/ (here, this repository), submission/ beside it.
    workspace = tmp_path / "workspace"
    (workspace / "submission").mkdir(parents=True)
    shutil.copy(sample_path(mha), workspace / "submission" / "mha.ipynb")
    # A stand-in sudo that logs and runs the command as this user, and, where the tests
    # run as root, an `id` that says otherwise: the step then takes its sudo branch.
    tools = tmp_path / "bin"
    tools.mkdir()
    log = tmp_path / "sudo.log"
    (tools / "sudo").write_text(f'#!/bin/sh\n[ "$1" = -n ] && shift\necho "$*" >> {log}\nexec "$@"\n')
    if os.geteuid() == 0:
        (tools / "id").write_text("#!/bin/sh\necho 1000\n")
    for tool in tools.iterdir():
        tool.chmod(0o755)
    env = {
        **os.environ,
        "PATH": f"{tools}{os.pathsep}{os.environ['PATH']}",
        "KIT_PYTHON": sys.executable,
        **{name: _workflow_default(value) for name, value in workflow["env"].items()},
        "GITHUB_OUTPUT": str(tmp_path / "github_output"),
        "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md"),
    }
    assert grade["working-directory"] == "kit"
    command = grade["run"].replace("../", f"{workspace}/")  # kit/ is KIT_ROOT here
    # bash -eo pipefail: how GitHub runs a `run:` step
    done = subprocess.run(
        ["bash", "-eo", "pipefail", "-c", command], cwd=KIT_ROOT, env=env, capture_output=True, text=True
    )
    # the sample has one bug: under the default threshold (full marks) the step fails
    assert env["FAIL_UNDER"] == "100"
    assert done.returncode == 1 and "under --fail-under 100" in done.stderr, done.stdout[-2000:] + done.stderr[-2000:]
    calls = log.read_text().splitlines()
    assert calls[1].startswith(f"{sys.executable} -m autograder grade {workspace}/submission --assignment mha")
    assert calls[2].startswith("chown -R")
    results = json.loads((workspace / "results" / "results.json").read_text())
    assert 0 < results["score"] < results["extra_data"]["max_score"]

    done = subprocess.run(
        ["bash", "-eo", "pipefail", "-c", points["run"]], cwd=workspace, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-2000:]
    key, value = (tmp_path / "github_output").read_text().strip().split("=", 1)
    read = reporter_reads(points["id"], {f"{points['id'].upper()}_RESULTS": value})
    assert read["points"] == (pytest.approx(results["score"]), 40.0)
    assert read["result"]["status"] == "fail" and "❌ PositionalEncoding" in read["lines"]
    summary = (tmp_path / "summary.md").read_text()
    assert "`PositionalEncoding`" in summary
    shown = json.dumps(read["result"]) + summary + (workspace / "public" / "points.json").read_text()
    for test in [
        t for t in results["tests"] if t["extra_data"]["kind"] == "hidden"
    ]:  # no hidden check's name or feedback before SHOW_HIDDEN_DETAILS
        assert test["name"].split(": ", 1)[1] not in shown
        assert test["status"] == "passed" or test["output"] not in shown
    assert sorted(p.name for p in (workspace / "public").iterdir()) == ["points.json"]


def test_check_prints_the_feedback_and_never_raises(mha, capsys):
    """Does check() in a notebook print a pass, and a failure with its known mistake, and raise nothing?"""
    from autograder.author.visible import visible_data
    from autograder.grade.reference import Reference
    from autograder.public.notebook import SelfCheck

    selfcheck = SelfCheck(visible_data(mha))
    selfcheck.check(Reference.of(mha).impl.split_heads)
    assert "split_heads: 1 of 1 visible checks pass" in capsys.readouterr().out

    def split_heads(x, n_heads):  # the classic slip: no transpose
        batch, seq, d_model = x.shape
        return x.reshape(batch, n_heads, seq, d_model // n_heads)

    selfcheck.check(split_heads)
    printed = capsys.readouterr().out
    assert "FAIL" in printed and "mixes tokens into heads" in printed and "Traceback" not in printed
    assert selfcheck.needs(split_heads) is False and "waits for split_heads" in capsys.readouterr().out


def test_visible_inputs_are_not_hidden_ones(assignment):
    """Are the students' visible inputs different from every hidden input?"""
    from autograder.grade.engine import ReferenceView, run_check
    from autograder.grade.plan import collect
    from autograder.grade.reference import Reference
    from autograder.public import wire

    reference, record = Reference.of(assignment), []
    for check in collect(assignment):
        run_check(
            check, {"student": ReferenceView(reference, record=record), "reference": reference, "submission": None}
        )
    hidden = {wire.digest(probe_id, inputs) for probe_id, inputs in record}
    visible = {wire.digest(case.probe.probe_id, case.inputs) for case in assignment.module("visible").VISIBLE}
    assert hidden and visible and not hidden & visible
