"""Does each route to students and instructors work as its users run it?

nbgrader autograde and its gradebook, the Gradescope bundle, CI (JUnit, --fail-under,
the GitHub Classroom workflow) and the students' self-checks.
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

from autograder import KIT_ROOT, build
from autograder.build import nbgrader_env, notebook_text, run_nbgrader

KIT = [sys.executable, "-m", "autograder"]


def run(command, **kwargs):
    return subprocess.run(command, capture_output=True, text=True, cwd=kwargs.pop("cwd", KIT_ROOT), **kwargs)


@pytest.fixture(scope="module")
def notebooks(mha, tmp_path_factory):
    """A correct, a partly wrong and a blank notebook, as students hand them in."""
    folder = tmp_path_factory.mktemp("class")
    (folder / "ada.ipynb").write_text(notebook_text(build.sample_notebook(mha, None)))
    shutil.copy(build.sample_path(mha), folder / "ben.ipynb")
    shutil.copy(mha.release_dir / mha.notebook_name, folder / "cy.ipynb")
    return folder


@pytest.fixture(scope="module")
def course(mha, notebooks, tmp_path_factory):
    """An nbgrader course with the assignment generated and the notebooks autograded."""
    root = tmp_path_factory.mktemp("course")
    shutil.copytree(mha.source_dir, root / "source" / mha.name)
    run_nbgrader(mha, root)
    for notebook in notebooks.glob("*.ipynb"):
        target = root / "submitted" / notebook.stem / mha.name
        target.mkdir(parents=True)
        shutil.copy(notebook, target / mha.notebook_name)
    done = run([sys.executable, "-m", "nbgrader", "autograde", mha.name, f"--CourseDirectory.root={root}"], env=nbgrader_env())
    assert done.returncode == 0, done.stderr[-3000:]
    return root


@pytest.mark.slow
def test_nbgrader_autograde_gives_the_kit_points(mha, mha_grader, notebooks, course):
    """Do nbgrader autograde and the grade command give each name the same points?"""
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        for notebook in sorted(notebooks.glob("*.ipynb")):
            ours = mha_grader.grade(notebook).by_name()
            for name in mha.graded:
                theirs = gradebook.find_grade(f"{name}-tests", "mha", mha.name, notebook.stem).score
                assert theirs == pytest.approx(ours[name][0], abs=1e-3), (notebook.stem, name)
    assert ours["tokenize"][0] == 0  # the blank one came last: the comparison covered a zero too


@pytest.mark.slow
def test_batch_points_reach_the_gradebook(mha, notebooks, course, tmp_path):
    """After grade-all and `gradebook`, does `nbgrader export` list each student's points?"""
    out = tmp_path / "out"
    done = run(KIT + ["grade-all", str(notebooks), "-a", "mha", "--out", str(out), "--jobs", "1", "--quiet", "--allow-unsandboxed"])
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    fresh = tmp_path / "course"
    shutil.copytree(mha.source_dir, fresh / "source" / mha.name)  # a gradebook without the assignment yet
    done = run(KIT + ["gradebook", str(out), "-a", "mha", "--course", str(fresh)])
    assert done.returncode == 0, done.stderr
    exported = run([sys.executable, "-m", "nbgrader", "export", f"--CourseDirectory.root={fresh}", f"--to={tmp_path / 'grades.csv'}"], env=nbgrader_env())
    assert exported.returncode == 0, exported.stderr
    with open(tmp_path / "grades.csv") as file:
        rows = {row["student_id"]: row for row in csv.DictReader(file)}
    for student in ("ada", "ben", "cy"):
        ours = json.loads((out / student / "results.json").read_text())["score"]
        assert float(rows[student]["raw_score"]) == pytest.approx(ours, abs=1e-3)


@pytest.mark.slow
def test_gradescope_bundle_grades_a_fake_tree(mha, tmp_path):
    """Does the zip's run_autograder write results.json where Gradescope expects it?"""
    bundle = tmp_path / "mha.zip"
    assert run(KIT + ["gradescope", "-a", "mha", "--out", str(bundle)]).returncode == 0
    root = tmp_path / "autograder"
    with zipfile.ZipFile(bundle) as archive:
        names = archive.namelist()
        archive.extractall(root / "source")
    assert {"setup.sh", "run_autograder"} <= set(names)
    assert not [n for n in names if n.startswith(("kit/tests", "kit/release", "kit/source"))]
    assert run(["bash", "-n", str(root / "source" / "setup.sh")]).returncode == 0
    (root / "submission").mkdir()
    shutil.copy(build.sample_path(mha), root / "submission" / "mha.ipynb")
    os.chmod(root / "source" / "run_autograder", 0o755)
    env = {**os.environ, "AUTOGRADER_ROOT": str(root), "KIT_PYTHON": sys.executable, "PYTHONDONTWRITEBYTECODE": "1"}
    done = run([str(root / "source" / "run_autograder")], env=env, cwd=root)
    assert done.returncode == 0, done.stderr[-2000:]
    results = json.loads((root / "results" / "results.json").read_text())
    assert 0 < results["score"] < results["extra_data"]["max_score"]
    assert {test["visibility"] for test in results["tests"]} == {"after_due_date"}


def test_gradescope_gets_a_result_for_an_empty_submission(mha, tmp_path):
    """With nothing gradable submitted, is there still a results.json that says why?"""
    root = tmp_path / "autograder"
    with zipfile.ZipFile(tmp_path / "mha.zip", "w") as archive:
        from autograder.gradescope import bundle_files

        for name, data in bundle_files(mha).items():
            archive.writestr(name, data)
    with zipfile.ZipFile(tmp_path / "mha.zip") as archive:
        archive.extractall(root / "source")
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
    done = run(KIT + ["grade", str(build.sample_path(mha)), "--out", str(tmp_path), "--fail-under", "95", "--allow-unsandboxed"])
    assert done.returncode == 1 and "under --fail-under 95" in done.stderr
    results = json.loads((tmp_path / "results.json").read_text())
    suite = ElementTree.parse(tmp_path / "junit.xml").getroot()
    cases = suite.findall("testcase")
    assert len(cases) == len(results["tests"])
    failed = [case for case in cases if case.find("failure") is not None]
    assert len(failed) == sum(t["score"] < t["max_score"] for t in results["tests"]) > 0
    assert all(case.get("classname") == "mha.PositionalEncoding" for case in failed)
    assert run(KIT + ["grade", str(build.sample_path(mha)), "--out", str(tmp_path), "--fail-under", "50", "--allow-unsandboxed"]).returncode == 0


def _workflow_default(value: str) -> str:
    """The default of `${{ vars.NAME || 'default' }}`: what a runner gets with no variable set."""
    return value.split("'")[1]


@pytest.mark.slow
def test_github_workflow_runs_what_it_says(mha, tmp_path):
    """Do the workflow's Grade and Points steps work as written, under sudo, and keep hidden details back?"""
    from tests.deliver.test_classroom import reporter_reads

    workflow = yaml.safe_load((KIT_ROOT / "autograder" / "templates" / "github-classroom.yml").read_text())
    steps = workflow["jobs"]["run-autograding-tests"]["steps"]
    grade = next(step for step in steps if step.get("name") == "Grade")
    points = next(step for step in steps if step.get("name") == "Points for GitHub Classroom")
    # The runner's workspace: kit/ (here, this repository), submission/ beside it.
    workspace = tmp_path / "workspace"
    (workspace / "submission").mkdir(parents=True)
    shutil.copy(build.sample_path(mha), workspace / "submission" / "mha.ipynb")
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
    done = subprocess.run(["bash", "-eo", "pipefail", "-c", command], cwd=KIT_ROOT, env=env, capture_output=True, text=True)
    # the sample has one bug: under the default threshold (full marks) the step fails
    assert env["FAIL_UNDER"] == "100"
    assert done.returncode == 1 and "under --fail-under 100" in done.stderr, done.stdout[-2000:] + done.stderr[-2000:]
    calls = log.read_text().splitlines()
    assert calls[1].startswith(f"{sys.executable} -m autograder grade {workspace}/submission --assignment mha")
    assert calls[2].startswith("chown -R")
    results = json.loads((workspace / "results" / "results.json").read_text())
    assert 0 < results["score"] < results["extra_data"]["max_score"]

    done = subprocess.run(["bash", "-eo", "pipefail", "-c", points["run"]], cwd=workspace, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    key, value = (tmp_path / "github_output").read_text().strip().split("=", 1)
    read = reporter_reads(points["id"], {f"{points['id'].upper()}_RESULTS": value})
    assert read["points"] == (pytest.approx(results["score"]), 40.0)
    assert read["result"]["status"] == "fail" and "❌ PositionalEncoding" in read["lines"]
    summary = (tmp_path / "summary.md").read_text()
    assert "`PositionalEncoding`" in summary
    shown = json.dumps(read["result"]) + summary + (workspace / "public" / "points.json").read_text()
    for test in results["tests"]:  # no hidden check's name or feedback before SHOW_HIDDEN_DETAILS
        assert test["name"].split(": ", 1)[1] not in shown and test["output"] not in shown
    assert sorted(p.name for p in (workspace / "public").iterdir()) == ["points.json"]


@pytest.mark.slow
def test_student_self_check_command(mha, tmp_path):
    """Does `python -m kitcheck` in the release pass a correct notebook and name the sample's mistake?"""
    release = tmp_path / "release"
    shutil.copytree(mha.release_dir, release)
    (release / "solved.ipynb").write_text(notebook_text(build.sample_notebook(mha, None)))
    shutil.copy(build.sample_path(mha), release / "buggy.ipynb")
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    good = run([sys.executable, "-m", "kitcheck", "solved.ipynb"], cwd=release, env=env)
    assert good.returncode == 0 and "12 of 12 exercises pass" in good.stdout, good.stdout[-2000:]
    assert "hidden checks test MultiHeadAttention further" in good.stdout
    bad = run([sys.executable, "-m", "kitcheck", "buggy.ipynb"], cwd=release, env=env)
    assert bad.returncode == 1
    assert "both features of a pair share the exponent" in bad.stdout  # the known mistake, named


def test_check_cell_raises_with_the_feedback(mha, capsys):
    """Does check() in a notebook print the failure and raise, and pass a right answer?"""
    sys.path.insert(0, str(mha.release_dir))
    try:
        import kitcheck
        from autograder.reference import Reference

        reference = Reference.of(mha).impl
        kitcheck.check(reference.split_heads)
        assert "split_heads: 1 of 1 visible checks pass" in capsys.readouterr().out

        def split_heads(x, n_heads):  # the classic slip: no transpose
            batch, seq, d_model = x.shape
            return x.reshape(batch, n_heads, seq, d_model // n_heads)

        with pytest.raises(kitcheck.CheckFailed):
            kitcheck.check(split_heads)
        assert "mixes tokens into heads" in capsys.readouterr().out
    finally:
        sys.path.remove(str(mha.release_dir))
        for module in [m for m in sys.modules if m == "kitcheck" or m.startswith("kitcheck.")]:
            del sys.modules[module]


def test_visible_inputs_are_not_hidden_ones(mha, mha_grader):
    """Are the students' visible inputs different from every hidden input?"""
    from autograder.core import wire

    mha_grader.grade(mha.reference_path)
    hidden = set(mha_grader.reference._cache)
    visible = {wire.digest(case.probe.probe_id, case.inputs) for case in mha.module("visible").VISIBLE}
    assert hidden and visible and not hidden & visible
