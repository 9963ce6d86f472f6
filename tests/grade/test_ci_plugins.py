"""Do grades stay the same where a CI image brings its own pytest plugins?

CI and GPU images often have pytest-timeout and pytest-xdist installed, and set their
options in PYTEST_ADDOPTS. Here both are installed into a scratch folder that only the
graded runs see (PYTHONPATH; pytest loads them through their entry points), with
`--timeout 1 -n 2` in PYTEST_ADDOPTS: `autograder grade` and plain pytest over the
graders must give the points a run without them gives.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from autograder import KIT_ROOT
from autograder.author.samples import sample_path

pytestmark = pytest.mark.slow

PLUGINS = ["pytest-timeout==2.4.0", "pytest-xdist==3.8.0", "execnet==2.1.2"]
SCRATCH = KIT_ROOT / "build" / "ci-plugins"  # installed once, kept between runs (build/ is not committed)


@pytest.fixture(scope="module")
def plugins() -> Path:
    """A folder with the plugins (from the package index pip is set to use: public PyPI on a fresh machine)."""
    marker = SCRATCH / ("installed-" + "-".join(PLUGINS))
    if not marker.exists():
        command = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(SCRATCH), *PLUGINS]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        assert done.returncode == 0, f"could not install {PLUGINS} (network?):\n{done.stderr[-2000:]}"
        marker.touch()
    return SCRATCH


def run(command: list[str], plugins: Path | None) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("PYTEST_ADDOPTS", None)
    if plugins is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(KIT_ROOT), str(plugins)])
        env["PYTEST_ADDOPTS"] = "--timeout 1 -n 2"
    return subprocess.run(command, capture_output=True, text=True, cwd=KIT_ROOT, env=env, check=False)


def test_the_plugins_are_really_loaded(plugins):
    """Is the check below real: does pytest see both plugins and their options?"""
    done = run([sys.executable, "-m", "pytest", "--help"], plugins)
    assert "--timeout" in done.stdout and "--numprocesses" in done.stdout, done.stdout[-2000:] + done.stderr


def test_grade_is_the_same_with_ci_plugins(mha, plugins, tmp_path):
    """Does `autograder grade` give the same results.json scores with the plugins and their options as without?"""
    scores = {}
    for label, folder in (("bare", None), ("plugins", plugins)):
        out = tmp_path / label
        command = [sys.executable, "-m", "autograder", "grade", str(sample_path(mha)), "-a", "mha", "--out", str(out)]
        done = run(command, folder)
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
        results = json.loads((out / "results.json").read_text())
        scores[label] = (results["score"], {name: v["score"] for name, v in results["extra_data"]["by_name"].items()})
    assert scores["plugins"] == scores["bare"]


def test_plain_pytest_is_the_same_with_ci_plugins(mha, plugins, tmp_path):
    """Does plain pytest over the graders, under -n 2 and --timeout 1, run in one session with the same points?"""
    command = [sys.executable, "-m", "pytest", "solutions/mha/graders", "-q", "-p", "no:cacheprovider",
               "--grade-submission", str(sample_path(mha)), "--grade-results", str(tmp_path)]  # fmt: skip
    done = run(command, plugins)
    assert done.returncode == 1, done.stdout[-2000:] + done.stderr[-2000:]  # the sample's PositionalEncoding fails
    assert "set aside -n (pytest-xdist)" in done.stdout and "set aside pytest-timeout" in done.stdout
    results = json.loads((tmp_path / "results.json").read_text())
    assert results["score"] == pytest.approx(37.7)  # as tests/grade/test_graders.py finds without plugins
