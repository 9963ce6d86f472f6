"""Is grading isolated on every host a course uses, in the strongest tier that host allows, and said so?

This machine is root with cgroup v1 controllers, where the hardened tier runs. The
other hosts are simulated (tests/hosts/): an ordinary account (user namespaces: the
"userns" tier), root in a container that refuses new namespaces (the "uid" tier), and
a host whose only cgroup file system is cgroup2. In each, the hostile set
(tests/data/hostile/) must earn only its honest points, leave nothing behind and change no
file of the kit. A host this machine cannot simulate is skipped, with its reason.
"""

import json
import os
import pwd
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from autograder import KIT_ROOT
from autograder.config import GradingConfig
from autograder.errors import KitError
from autograder.grade.engine import Grader
from autograder.sandbox.host import tiers, uids
from autograder.sandbox.host.client import Zygote

from ..hosts.kit_python import PRIVATE, private_copy

HOSTS = KIT_ROOT / "tests" / "hosts"
ROOT = os.geteuid() == 0


def needs_root():
    if not ROOT:
        pytest.skip("simulating another host needs root")


def hostile_set(command: list[str], out: Path, kit: Path = KIT_ROOT, timeout: int = 900, umask: int = -1) -> dict:
    """Run the hostile set with this command prefix, from this kit's folder (`-m` imports from it first), under
    ``umask`` where one is given (an instructor's 077: the grader's umask must not close the sandbox); its report."""
    done = subprocess.run(
        [*command, "-m", "tests.sandbox.hostile_run", str(out)],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=kit,
        umask=umask,
    )
    assert done.returncode == 0 and out.exists(), done.stdout[-3000:] + done.stderr[-3000:]
    return json.loads(out.read_text())


def assert_clean(report: dict, tier: str) -> None:
    assert report["tier"]["tier"] == tier, report["tier"]
    problems = {name: found for name, found in report["problems"].items() if found}
    assert not problems, json.dumps(problems, indent=1)[:4000]
    assert report["changed"] == []


@pytest.fixture
def shared_out():
    """A file any user may write the report into (pytest's own folders are root's alone)."""
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="kit-tiers-"))
    os.chmod(folder, 0o777)
    yield folder / "report.json"
    shutil.rmtree(folder, ignore_errors=True)


def test_this_machine_grades_in_the_strongest_tier(mha, mha_grader):
    """As root here, is grading hardened, with cgroups bounding memory and processes, and said so?"""
    report = mha_grader.grade(mha.reference_path)
    expected = "hardened" if ROOT else "userns"
    assert report.isolation["tier"] == expected, report.isolation
    if ROOT:
        assert "memory" in report.isolation["limits"] and "pids" in report.isolation["limits"]


@pytest.mark.slow(seconds=56)
@pytest.mark.usefixtures("mha_grader")  # the reference's outputs cached, for the kit's copy
def test_an_ordinary_account_gets_the_userns_tier(shared_out):
    """As an ordinary user grading with a kit of its own (a checkout the account owns and may write): own namespaces
    inside a user namespace, and the hostile set earns only its honest points and changes no file of that kit."""
    needs_root()
    kit = private_copy(shared_out.parent / "kit")
    account = pwd.getpwnam("nobody")
    for root, folders, files in os.walk(kit):
        for name in [".", *folders, *files]:
            os.chown(os.path.join(root, name), account.pw_uid, account.pw_gid, follow_symlinks=False)
    command = [sys.executable, str(HOSTS / "kit_python.py"), "--user", "nobody", "--kit", str(kit), "--"]
    report = hostile_set(command, shared_out, kit=kit)
    assert_clean(report, "userns")
    assert "RLIMIT_AS" in report["tier"]["limits"]  # no cgroup is delegated to nobody here: said so


@pytest.mark.slow(seconds=53)
@pytest.mark.usefixtures("mha_grader")  # the reference's outputs cached, for the kit's copy
def test_a_container_that_refuses_namespaces_gets_the_uid_tier(tmp_path):
    """As root where namespaces are refused, with the kit unreadable to others and an instructor's umask 077: the
    uid tier holds the hostile set."""
    needs_root()
    kit = private_copy(tmp_path / "kit")
    os.chmod(tmp_path, 0o755)
    out = tmp_path / "report.json"
    report = hostile_set(
        [sys.executable, str(HOSTS / "kit_python.py"), "--kit", str(kit), "--no-namespaces", "--"],
        out,
        kit=kit,
        umask=0o077,
    )
    assert_clean(report, "uid")
    assert "not hardened" in report["tier"]["why"]


@pytest.mark.slow(seconds=51)
@pytest.mark.usefixtures("mha_grader")  # the reference's outputs cached, for the kit's copy
def test_a_container_without_cgroups_gets_the_uid_tier_bounded_by_rlimits(tmp_path):
    """Where namespaces are refused and no cgroup bounds memory (cgroup2 alone, its controllers held by v1
    here): the uid tier, memory bounded by RLIMIT_AS and the seccomp filter, its files watched; said so."""
    needs_root()
    kit = private_copy(tmp_path / "kit")
    os.chmod(tmp_path, 0o755)
    out = tmp_path / "report.json"
    command = [sys.executable, str(HOSTS / "cgroup2_only.py"), "--", sys.executable, str(HOSTS / "kit_python.py")]
    report = hostile_set([*command, "--kit", str(kit), "--no-namespaces", "--"], out, kit=kit)
    assert_clean(report, "uid")
    assert "RLIMIT_AS" in report["tier"]["limits"] and "/dev/shm" in report["tier"]["limits"]


def test_the_simulated_kit_copy_closes_what_the_tiers_keep_private():
    """Does tests/hosts/kit_python.py close the same folders of its kit copy that the uid tier checks?"""
    assert set(PRIVATE) == set(tiers.PRIVATE)


@pytest.mark.slow(seconds=53)
def test_a_cgroup2_only_host_still_gets_the_hardened_tier(tmp_path):
    """Where cgroup2 is the only cgroup file system, graded under an instructor's umask 077: hardened, job cgroups
    for CPU time and kill, rlimits for what they cannot bound."""
    needs_root()
    out = tmp_path / "report.json"
    report = hostile_set([sys.executable, str(HOSTS / "cgroup2_only.py"), "--", sys.executable], out, umask=0o077)
    assert_clean(report, "hardened")
    assert report["tier"]["limits"].startswith("cgroup v2") and "RLIMIT_AS" in report["tier"]["limits"]


@pytest.mark.slow
def test_a_host_that_cannot_grade_gives_no_score(mha, monkeypatch, tmp_path):
    """When the sandbox cannot hold the reference, is the result 'not graded', exit status 3, and no score?"""
    from autograder import cli

    def broken(self, request):
        raise KitError("the zygote could not start a student process")

    monkeypatch.setattr(Zygote, "spawn", broken)
    status = cli.main(["grade", str(mha.reference_path), "--out", str(tmp_path)])
    results = json.loads((tmp_path / "results.json").read_text())
    assert status == 3 and "score" not in results and results["extra_data"]["status"] == "not graded"


@pytest.mark.slow
def test_grader_uids_are_its_own_in_the_hostile_tests(mha):
    """Does a grader's leftover check look at its own uids only (another grader may run beside it)?"""
    needs_root()
    with Grader(mha, GradingConfig()) as grader:
        assert grader.isolation.uid_pool is not None and all(uid >= uids.BASE for uid in grader.isolation.uid_pool.uids)
