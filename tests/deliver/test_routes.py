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
from pathlib import Path
from xml.etree import ElementTree

import nbformat
import pytest
import yaml

from autograder import KIT_ROOT
from autograder.author.build import write_master
from autograder.author.notebook import notebook_text
from autograder.author.release import nbgrader_env, run_nbgrader
from autograder.author.samples import sample_notebook, sample_path
from tests.author.clone import SHARES_THE_BUILT_CLONE, clone_env, copy_of_clone, run_in

from .routes.test_gradebook import hostile_notebook, rendered_scripts
from .routes.test_gradescope import METADATA

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
    shutil.copy(write_master(mha), root / "source" / mha.name / mha.notebook_name)
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
    (root / AUTOGRADE_LOG).write_text(done.stdout + done.stderr)
    return root


AUTOGRADE_LOG = "autograde.log"  # what nbgrader autograde printed, beside the course's folders


@pytest.mark.slow(seconds=40)
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
def test_nbgrader_autograde_calls_no_honest_notebook_changed(notebooks, course):
    """Does nbgrader autograde, restoring the hidden tests of notebooks that kept every locked cell as released, warn
    of no changed cell (nbgrader's own step warns "checksum ... has changed!" for every grade cell)?"""
    printed = (course / AUTOGRADE_LOG).read_text()
    graded = [line for line in printed.splitlines() if "Autograding" in line and "mha.ipynb" in line]
    assert len(graded) == len(list(notebooks.glob("*.ipynb"))), printed[-3000:]
    assert "has changed!" not in printed and "checksum" not in printed.lower(), printed[-3000:]


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


@pytest.mark.slow(seconds=26)
def test_class_points_reach_the_gradebook_and_nbgraders_feedback(mha, notebooks, tmp_path):
    """After grade-all (with the written answers' points a person gave) and `gradebook`, does `nbgrader export` list
    each student's points, the written ones included, and generate_feedback work?"""
    out = tmp_path / "out"
    given = tmp_path / "manual_points.csv"
    full = {answer: f"{points:g}" for answer, points in mha.written.items()}
    given.write_text(
        "key,name,"
        + ",".join(full)
        + "\n"
        + "ada,Ada,"
        + ",".join(full.values())
        + "\n"
        + "ben,Ben,1"
        + "," * (len(full) - 1)
        + "\n"
    )
    command = ["grade-all", str(notebooks), "-a", "mha", "--out", str(out), "--jobs", "1", "--quiet"]
    done = run(KIT + command + ["--manual-points", str(given)])
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
    written = {"ada": sum(mha.written.values()), "ben": 1, "cy": 0}  # an answer left as handed out: 0
    for student in ("ada", "ben", "cy"):
        ours = json.loads((out / "students" / student / "results.json").read_text())["score"]
        assert float(rows[student]["raw_score"]) == pytest.approx(ours + written[student], abs=1e-3)
        assert float(rows[student]["max_score"]) == 40 + sum(mha.written.values())
    assert float(rows["ada"]["raw_score"]) == 47
    feedback = run(
        [sys.executable, "-m", "nbgrader", "generate_feedback", "mha", f"--CourseDirectory.root={fresh}"],
        env=nbgrader_env(),
    )
    assert feedback.returncode == 0, feedback.stderr[-2000:]
    page = (fresh / "feedback" / "ben" / "mha" / "mha.html").read_text()
    assert "PositionalEncoding: " in page and "of 4 points" in page


@pytest.mark.slow(seconds=8)
def test_the_gradebook_stores_the_record_over_nbgraders_scores(mha, notebooks, course, tmp_path):
    """Does the import replace a score nbgrader autograde wrote by grade-all's, naming it, and keep manual ones when asked?"""
    from nbgrader.api import Gradebook

    out = tmp_path / "out"
    (tmp_path / "class").mkdir()
    shutil.copy(sample_path(mha), tmp_path / "class" / "cy.ipynb")  # cy's notebook was blank when autograded
    done = run(KIT + ["grade-all", str(tmp_path / "class"), "-a", "mha", "--out", str(out), "--jobs", "1", "--quiet"])
    assert done.returncode == 0
    url = f"sqlite:///{course / 'gradebook.db'}"
    with Gradebook(url) as gradebook:
        gradebook.find_grade("tokenize-tests", "mha", mha.name, "cy").manual_score = 1.0  # set in formgrader, say
        gradebook.db.commit()
    kept = run(KIT + ["gradebook", str(out), "-a", "mha", "--course", str(course), "--keep-manual"])
    assert kept.returncode == 0, kept.stderr
    assert "held other scores than grade-all's for 1 students:" in kept.stdout
    assert (
        "cy: tokenize automatic 0 (grade-all 2), tokenize manual 1 (grade-all 2), kept, build_vocab automatic 0"
        in kept.stdout
    )
    assert "in gradebook.db but not graded by grade-all, their scores unchecked (3): ada, ben, dee" in kept.stdout
    with Gradebook(url) as gradebook:
        assert gradebook.find_submission(mha.name, "cy").score == pytest.approx(37.7 - 1, abs=1e-3)
    done = run(KIT + ["gradebook", str(out), "-a", "mha", "--course", str(course)])
    assert "cy: tokenize manual 1 (grade-all 2)" in done.stdout and "automatic" not in done.stdout
    with Gradebook(url) as gradebook:
        assert gradebook.find_submission(mha.name, "cy").score == pytest.approx(37.7, abs=1e-3)


def gradescope_tree(mha, tmp_path, *options, image=None):
    """The bundle unpacked as Gradescope lays it out; image: a tree whose setup.sh ran (the image built), whose cache
    of the reference's outputs this tree gets, as every submission finds it on that image."""
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
    if image is not None:
        shutil.copytree(image / "source" / "kit" / "build" / "cache", root / "source" / "kit" / "build" / "cache")
    return root


def setup_checks(root) -> subprocess.CompletedProcess:
    """setup.sh's steps after the installs, run in a tree of gradescope_tree."""
    setup = (root / "source" / "setup.sh").read_text()
    check = setup[setup.index("cd /autograder/source/kit") :]
    check = check.replace("/autograder/venv/bin/python", sys.executable).replace("/autograder", str(root))
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "PYTHONPATH": str(root / "source" / "kit")}
    return run(["bash", "-euo", "pipefail", "-c", check], env=env, cwd=root)


@pytest.fixture(scope="module")
def gradescope_image(mha, tmp_path_factory):
    """A bundle's tree after setup.sh, once a module: (the tree, what its checks printed)."""
    root = gradescope_tree(mha, tmp_path_factory.mktemp("image"))
    return root, setup_checks(root)


def run_gradescope(root):
    env = {**os.environ, "AUTOGRADER_ROOT": str(root), "KIT_PYTHON": sys.executable, "PYTHONDONTWRITEBYTECODE": "1"}
    done = run([str(root / "source" / "run_autograder")], env=env, cwd=root)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads((root / "results" / "results.json").read_text())


@pytest.mark.slow(seconds=20)
def test_gradescope_bundle_grades_a_fake_tree(mha, gradescope_image, tmp_path):
    """Does run_autograder write results.json as Gradescope reads it, with no note about the course's demo cells?"""
    root = gradescope_tree(mha, tmp_path, image=gradescope_image[0])
    shutil.copy(sample_path(mha), root / "submission" / "mha.ipynb")
    results = run_gradescope(root)
    assert 0 < results["score"] < results["extra_data"]["max_score"]
    assert results["extra_data"]["notes"] == []  # the demo cells are the release's own: skipped, not run
    assert results["execution_time"] > 0 and "after the due date" in results["output"]
    hidden = [t for t in results["tests"] if t["extra_data"]["kind"] == "hidden"]
    assert {t["visibility"] for t in hidden} == {"after_due_date"}
    assert [t["visibility"] for t in results["tests"] if t["extra_data"]["kind"] == "self-checks"] == ["visible"]


@pytest.mark.slow
def test_gradescope_setup_checks_the_host_and_caches_the_reference(gradescope_image):
    """Does setup.sh's last step (doctor in the bundle's kit) grade the reference there, cache it, and lock the kit?"""
    root, done = gradescope_image
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "mha: the reference gets full marks through the sandbox" in done.stdout and "ready to grade" in done.stdout
    assert "attention_numpy" not in done.stdout  # the bundle holds its one assignment
    assert list((root / "source" / "kit" / "build" / "cache").glob("mha-*.npz"))
    assert (root / "source" / "kit").stat().st_mode & 0o077 == 0


@pytest.mark.slow
def test_gradescope_can_show_the_score_at_once(mha, gradescope_image, tmp_path):
    """With --show-score, is every test visible (so Gradescope shows the total) and no hidden detail in the file?"""
    root = gradescope_tree(mha, tmp_path, "--show-score", image=gradescope_image[0])
    shutil.copy(sample_path(mha), root / "submission" / "mha.ipynb")
    results = run_gradescope(root)
    assert {t["visibility"] for t in results["tests"]} == {"visible"}
    hidden = [t for t in results["tests"] if t["extra_data"]["kind"] == "hidden"]
    assert all(t["output"] == "The details of this hidden check are not shown here." for t in hidden)
    assert "37.7 of 40" in results["output"]


@pytest.mark.slow
def test_gradescope_gets_a_result_for_an_empty_submission(mha, gradescope_image, tmp_path):
    """With nothing gradable submitted, and late, is there still a results.json that says why (the student's zero), and that it is late?"""
    from autograder.deliver.routes.gradescope import zip_files

    root = tmp_path / "autograder"
    for name, data in zip_files(mha).items():
        (root / "source" / name).parent.mkdir(parents=True, exist_ok=True)
        (root / "source" / name).write_bytes(data)
    shutil.copytree(gradescope_image[0] / "source" / "kit" / "build", root / "source" / "kit" / "build")
    (root / "submission").mkdir()
    (root / "submission" / "notes.txt").write_text("I ran out of time")
    late = METADATA | {"created_at": "2018-08-01T01:30:00.5-07:00"}
    (root / "submission_metadata.json").write_text(json.dumps(late))
    env = {**os.environ, "AUTOGRADER_ROOT": str(root), "KIT_PYTHON": sys.executable, "PYTHONDONTWRITEBYTECODE": "1"}
    done = run(["bash", str(root / "source" / "run_autograder")], env=env, cwd=root)
    assert done.returncode == 0
    results = json.loads((root / "results" / "results.json").read_text())
    assert results["score"] == 0 and "could not be graded" in results["output"]
    assert results["output"].startswith("Submitted late: 2 h 30 min after the due date (2018-07-31 23:00:00-07:00).")
    assert results["extra_data"]["late"] is True and results["extra_data"]["late_by_seconds"] == 9000


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
    from .routes.test_classroom import reporter_reads

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


@pytest.mark.slow
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


# ------------------------------------------------------------------ doctor


def test_doctor_names_the_kit_the_kernel_imports(mha):
    """Does doctor say where the kernel's kit is, its version, and whether it grades as this one?"""
    from autograder import KIT_ROOT, __version__, assignments
    from autograder.doctor import _nbgrader_kernel, kernel_kit_line
    from autograder.grade.deciding import kit_digest

    line = _nbgrader_kernel()
    assert f"imports the kit at {KIT_ROOT} (version {__version__}): this checkout" in line, line
    ours = {name: kit_digest(a) for name, a in assignments.discover().items()}
    copy = {"root": "/srv/course-2023", "version": "0.1.0", "grading": ours}
    assert "imports the kit at /srv/course-2023 (version 0.1.0), another copy that grades as this one" in (
        kernel_kit_line("python3", copy)
    )
    other = kernel_kit_line("python3", copy | {"grading": ours | {"mha": "0" * 16}})
    assert "which grades mha otherwise: their hidden cells will refuse to score" in other
    assert str(KIT_ROOT / ".venv" / "bin" / "activate") in other


# ------------------------------------------------------------------ the commands' help


def test_gradebook_and_gradescope_help_say_the_assignment_is_required():
    """Does --help of gradebook, gradescope and collect call --assignment required, not inferred?"""
    for command in ("gradebook", "gradescope", "collect"):
        done = run(KIT + [command, "--help"])
        text = " ".join(done.stdout.split())
        assert done.returncode == 0 and "inferred" not in text, text
        assert f"{command} [-h] --assignment" in text


# ------------------------------------------------------------------ the README's nbgrader loop, from a fresh clone


def canvas_export(path, notebooks: dict[str, str]) -> Path:
    """A Canvas "Download Submissions" zip: <sortable name>_<user id>_<submission id>_<file name> per student."""
    with zipfile.ZipFile(path, "w") as archive:
        for number, (name, text) in enumerate(notebooks.items(), start=1):
            archive.writestr(f"{name}_{10000 + number}_{900000 + number}_mha.ipynb", text)
    return path


def class_notebooks(mha) -> dict[str, str]:
    """A finished, a one-bug and a barely started notebook, by Canvas sortable name."""
    return {
        "lovelaceada": notebook_text(sample_notebook(mha, None)),
        "babbageben": sample_path(mha).read_text(),
        "cycy": first_exercise_only(mha),
    }


def first_exercise_only(mha) -> str:
    """The release with tokenize done and every other exercise as handed out (its demo cells fail at once)."""
    notebook = nbformat.read(mha.release_dir / mha.notebook_name, as_version=4)
    done = {cell.get("id"): cell.source for cell in sample_notebook(mha, None).cells}
    next(cell for cell in notebook.cells if cell.get("id") == "tokenize").source = done["tokenize"]
    return notebook_text(notebook)


def nbgrader_in(clone, *words, env=None):
    done = subprocess.run(
        [sys.executable, "-m", "nbgrader", *words],
        cwd=clone,
        env=env or clone_env(clone),
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]
    return done


def stored_scores(clone, student) -> dict[str, tuple]:
    """(auto, manual) score of each grade cell of a student's submission in the clone's gradebook.db."""
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{clone / 'gradebook.db'}") as gradebook:
        notebook = gradebook.find_submission_notebook("mha", "mha", student)
        return {g.name.removesuffix("-tests"): (g.auto_score, g.manual_score) for g in notebook.grades}


def exported(clone, tmp_path) -> dict[str, float]:
    """`nbgrader export`'s grades.csv: score per student."""
    target = tmp_path / f"grades-{len(list(tmp_path.glob('grades-*')))}.csv"
    nbgrader_in(clone, "export", f"--to={target}")
    with open(target) as file:
        return {row["student_id"]: float(row["score"]) for row in csv.DictReader(file)}


def formgrader(clone, student: str) -> tuple[list[dict], str]:
    """What formgrader shows: its API's submissions of the assignment, and the page of one student's notebook.

    The page is rendered as formgrader's SubmissionHandler renders it: its HTMLExporter
    with the `formgrade` template, on autograded/<student>/mha/mha.ipynb.
    """
    from nbconvert import HTMLExporter
    from nbgrader.apps.api import NbGraderAPI
    from nbgrader.coursedir import CourseDirectory
    from nbgrader.server_extensions.formgrader import handlers
    from traitlets.config import Config

    api = NbGraderAPI(coursedir=CourseDirectory(root=str(clone)))
    submissions = api.get_submissions("mha")
    notebook = next(s for s in api.get_notebook_submissions("mha", "mha") if s["student"] == student)
    config = Config()
    config.HTMLExporter.template_name = "formgrade"
    config.HTMLExporter.extra_template_basedirs = [handlers.template_path]
    resources = {
        "assignment_id": "mha",
        "notebook_id": "mha",
        "submission_id": notebook["id"],
        "index": notebook["index"],
        "total": len(submissions),
        "base_url": "/",
        "student": student,
        "last_name": notebook["last_name"],
        "first_name": notebook["first_name"],
        "notebook_path": f"/autograded/{student}/mha/mha.ipynb",
    }
    page, _ = HTMLExporter(config=config).from_filename(
        str(clone / "autograded" / student / "mha" / "mha.ipynb"), resources=resources
    )
    return submissions, page


@pytest.mark.slow(seconds=84)
@SHARES_THE_BUILT_CLONE
def test_the_readme_nbgrader_loop_works_from_a_fresh_clone(mha, mha_grader, built_mha_clone, tmp_path):
    """From a fresh clone: build, collect a Canvas download, autograde, formgrader, feedback, export, as the README says?"""
    clone = copy_of_clone(built_mha_clone, tmp_path / "clone")  # built as the README's first step says
    export = canvas_export(tmp_path / "canvas.zip", class_notebooks(mha))
    collected = run_in(clone, "python", "-m", "autograder", "collect", str(export), "-a", "mha")
    assert collected.returncode == 0, collected.stderr[-3000:]
    students = ["babbageben-10002", "cycy-10003", "lovelaceada-10001"]
    assert sorted(p.parent.parent.name for p in (clone / "submitted").glob("*/mha/mha.ipynb")) == students
    nbgrader_in(clone, "autograde", "mha")  # as the README writes it: no --create, no generate_assignment
    ours = {
        "lovelaceada-10001": 40.0,
        "babbageben-10002": float(mha_grader.grade(sample_path(mha)).score),
        "cycy-10003": 2.0,  # tokenize's points
    }
    assert exported(clone, tmp_path) == pytest.approx(ours, abs=1e-3)
    submissions, page = formgrader(clone, "babbageben-10002")
    assert {s["student"]: s["score"] for s in submissions} == pytest.approx(ours, abs=1e-3)
    assert all(s["autograded"] and not s["needs_manual_grade"] for s in submissions)
    assert "PositionalEncoding: " in page and "of 4 points" in page
    nbgrader_in(clone, "generate_feedback", "mha")
    feedback = (clone / "feedback" / "babbageben-10002" / "mha" / "mha.html").read_text()
    assert "PositionalEncoding: " in feedback and "can forge these points" in feedback

    # points.toml changed after the assignment went into gradebook.db: the hidden cells refuse, naming the fix
    points = clone / "solutions" / "mha" / "points.toml"
    points.write_text(points.read_text().replace("\ntokenize = 2\n", "\ntokenize = 5\n"))
    nbgrader_in(clone, "autograde", "mha", "--force", "--student", "cycy-10003")
    refused = nbformat.read(clone / "autograded" / "cycy-10003" / "mha" / "mha.ipynb", as_version=4)
    cell = next(c for c in refused.cells if c.get("id") == "tokenize-tests")
    error = "".join(cell.outputs[-1].get("evalue", ""))
    assert "NotScored" == cell.outputs[-1]["ename"] and "gives tokenize 5 points, this grade cell 2" in error, error
    assert "`python -m autograder build mha`" in error
    rebuilt = run_in(clone, "python", "-m", "autograder", "build", "mha")
    assert rebuilt.stdout.startswith("mha: release/mha, gradebook.db"), rebuilt.stdout + rebuilt.stderr[-2000:]
    nbgrader_in(clone, "autograde", "mha", "--force", "--student", "cycy-10003")
    assert stored_scores(clone, "cycy-10003")["tokenize"] == (5.0, None)

    # a kernel that imports another copy of the kit, with the same points but graders of its own, refuses too
    points.write_text(points.read_text().replace("\ntokenize = 5\n", "\ntokenize = 2\n"))
    grader = clone / "solutions" / "mha" / "graders" / "test_tokenize.py"
    grader.write_text(grader.read_text() + "\n# changed in the course's copy\n")
    assert run_in(clone, "python", "-m", "autograder", "build", "mha").stdout.startswith(
        "mha: release/mha, gradebook.db"
    )
    elsewhere = {**clone_env(clone), "PYTHONPATH": ""}  # the kernel imports this checkout's kit, not the clone's
    nbgrader_in(clone, "autograde", "mha", "--force", "--student", "cycy-10003", env=elsewhere)
    refused = nbformat.read(clone / "autograded" / "cycy-10003" / "mha" / "mha.ipynb", as_version=4)
    cell = next(c for c in refused.cells if c.get("id") == "tokenize-tests")
    assert f"this kernel imports the kit at {KIT_ROOT}" in cell.outputs[-1]["evalue"]


@pytest.mark.slow(seconds=57)
@SHARES_THE_BUILT_CLONE
def test_a_forged_autograde_cannot_lower_the_record(mha, built_mha_clone, tmp_path):
    """Hostile: a notebook that forges its own points and zeroes its classmates' under nbgrader autograde.

    What it can do there: replace the function the hidden cells call (a blank notebook
    gets 40 of 40) and write gradebook.db (its classmates' manual scores set to 0).
    What it cannot: do either under grade-all, where it runs sandboxed; nor keep any of
    it once `gradebook` imports grade-all's record, which names every difference.
    """
    clone = copy_of_clone(built_mha_clone, tmp_path / "clone")
    blank = nbformat.read(mha.release_dir / mha.notebook_name, as_version=4)
    forge = "\n".join(
        [
            "import pathlib, sqlite3",
            "import autograder.deliver.nbgrader as kit",
            "kit.grade_in_notebook = lambda assignment, name, namespace, points=None, kit=None: points",
            f"for folder in [*pathlib.Path.cwd().parents, pathlib.Path({str(clone)!r})]:",
            "    if (folder / 'gradebook.db').is_file():",
            "        with sqlite3.connect(folder / 'gradebook.db') as db:",
            '            db.execute("UPDATE grade SET manual_score = 0 WHERE notebook_id IN (SELECT n.id FROM "',
            '                       "submitted_notebook n JOIN submitted_assignment s ON n.assignment_id = s.id "',
            "                       \"WHERE s.student_id NOT LIKE 'mallory%')\")",
            "        break",
        ]
    )
    at = next(i for i, c in enumerate(blank.cells) if c.get("id") == "setup") + 1
    blank.cells.insert(at, nbformat.v4.new_code_cell(forge))
    notebooks = {
        "lovelaceada": first_exercise_only(mha),
        "cycy": (mha.release_dir / mha.notebook_name).read_text(),
        "mallory": nbformat.writes(blank),
    }
    export = canvas_export(tmp_path / "canvas.zip", notebooks)
    assert run_in(clone, "python", "-m", "autograder", "collect", str(export), "-a", "mha").returncode == 0
    nbgrader_in(clone, "autograde", "mha", "--student", "lovelaceada-10001")
    nbgrader_in(clone, "autograde", "mha", "--student", "cycy-10002")
    nbgrader_in(clone, "autograde", "mha", "--student", "mallory-10003")
    assert exported(clone, tmp_path) == {"lovelaceada-10001": 0.0, "cycy-10002": 0.0, "mallory-10003": 40.0}
    assert {manual for _, manual in stored_scores(clone, "lovelaceada-10001").values()} == {0.0}

    before = (clone / "gradebook.db").read_bytes()
    out = tmp_path / "out"
    graded = run_in(
        clone,
        "python",
        "-m",
        "autograder",
        "grade-all",
        str(export),
        "-a",
        "mha",
        "--out",
        str(out),
        "--jobs",
        "1",
        "--quiet",
    )
    assert graded.returncode == 0, graded.stderr[-3000:]
    mallory = json.loads((out / "students" / "mallory-10003" / "results.json").read_text())
    assert mallory["score"] == 0
    if mallory["extra_data"]["isolation"]["tier"] != "process":
        assert (clone / "gradebook.db").read_bytes() == before  # sandboxed, the same cell reached nothing
    imported = run_in(clone, "python", "-m", "autograder", "gradebook", str(out), "-a", "mha")
    assert imported.returncode == 0, imported.stderr[-3000:]
    text = imported.stdout
    assert "held other scores than grade-all's for 2 students" in text
    assert "lovelaceada-10001: tokenize manual 0 (grade-all 2)\n" in text  # her only points, zeroed
    assert "mallory-10003: tokenize automatic 2 (grade-all 0)," in text
    assert "display_attention automatic 3 (grade-all 0)" in text and "can forge them" in text
    assert exported(clone, tmp_path) == {"lovelaceada-10001": 2.0, "cycy-10002": 0.0, "mallory-10003": 0.0}


@pytest.mark.slow(seconds=15)
@pytest.mark.filterwarnings("ignore:Non-unique cell id")  # hostile_notebook repeats a cell, its id too
def test_no_student_script_reaches_nbgraders_feedback_or_formgrader(mha, tmp_path):
    """After grade-all and `gradebook`, does a script in a student's Markdown, outputs or raw cells stay text in generate_feedback's and formgrader's pages?"""
    (tmp_path / "class").mkdir()
    (tmp_path / "class" / "eve.ipynb").write_text(nbformat.writes(hostile_notebook(mha)))
    out = tmp_path / "out"
    done = run(KIT + ["grade-all", str(tmp_path / "class"), "-a", "mha", "--out", str(out), "--jobs", "1", "--quiet"])
    assert done.returncode == 0, done.stderr[-2000:]
    course = tmp_path / "course"
    course.mkdir()
    assert run(KIT + ["gradebook", str(out), "-a", "mha", "--course", str(course)]).returncode == 0
    nbgrader_in(course, "generate_feedback", "mha", f"--CourseDirectory.root={course}", env=nbgrader_env())
    page = (course / "feedback" / "eve" / "mha" / "mha.html").read_text()
    assert "window.fromMarkdown" in page and "tokenize: 2 of 2 points" in page
    assert rendered_scripts(page) == []
    _, formgraded = formgrader(course, "eve")
    assert "window.fromMarkdown" in formgraded and rendered_scripts(formgraded) == []
