"""Choosing the isolation: which tiers are tried, what each attempt checks, and the words the results carry."""

import os
from pathlib import Path

import pytest

from autograder import KIT_ROOT
from autograder.errors import KitError
from autograder.sandbox.host import tiers
from autograder.sandbox.host.arrangement import Hierarchy
from autograder.sandbox.host.client import Zygote
from autograder.sandbox.host.uids import SHARED_SCRATCH

ROOT = os.geteuid() == 0


def needs_root():
    if not ROOT:
        pytest.skip("the hardened and uid tiers need root")


def test_without_any_tier_grading_refuses_and_says_why(monkeypatch):
    """Where no tier works, does grading refuse, naming each tier's reason and the flag, unless allowed?"""
    monkeypatch.setattr(tiers, "candidates", lambda wanted, allowed: ["process"] if allowed else [])
    zygote = Zygote(torch=False)
    try:
        with pytest.raises(KitError, match="--allow-unsandboxed"):
            tiers.choose(zygote)
        isolation = tiers.choose(zygote, allow_unsandboxed=True)
        assert isolation.tier == "process" and "NOT isolated" in isolation.describe()
    finally:
        zygote.close()


def test_cuda_is_graded_only_where_a_cgroup_bounds_memory():
    """With --device cuda, is a tier whose memory no cgroup bounds refused, saying why and what to do, and the
    same tier on the CPU path bounded by RLIMIT_AS and said so?"""
    needs_root()
    zygote = Zygote(torch=False)
    no_memory = Hierarchy(2, {"": Path("/nonexistent")}, frozenset({"pids", "cpu"}))
    try:
        isolation, reason = tiers.attempt(zygote, "uid", "cuda", ([], []), no_memory)
        assert isolation is None and "only a cgroup bounds every kind of memory" in reason and "--device cpu" in reason
        isolation, reason = tiers.attempt(zygote, "uid", "cpu", ([], []), no_memory)
        assert isolation is not None and "RLIMIT_AS" in isolation.limits, reason
        isolation.close()
    finally:
        zygote.close()


def test_root_is_never_given_the_userns_tier():
    """Is the userns tier refused to root, whose uid would stay root outside?"""
    needs_root()
    with pytest.raises(KitError, match="ordinary users"):
        tiers.candidates("userns", False)


@pytest.mark.parametrize("euid, expected", [(0, ["hardened", "uid"]), (1000, ["userns"])])
def test_auto_tries_the_tiers_this_user_can_have_strongest_first(monkeypatch, euid, expected):
    """Does auto try hardened then uid as root, userns otherwise, the plain process last and only when allowed;
    and a named tier alone?"""
    monkeypatch.setattr(os, "geteuid", lambda: euid)
    assert tiers.candidates("auto", False) == expected
    assert tiers.candidates("auto", True) == expected + ["process"]
    assert tiers.candidates("uid", False) == ["uid"]


def test_an_unknown_tier_is_refused_naming_those_there_are():
    """Is an isolation the kit does not know refused with the list to choose from (before any attempt)?"""
    with pytest.raises(KitError, match="unknown isolation 'vm': choose auto or one of hardened, userns, uid, process"):
        tiers.choose(None, "vm")  # type: ignore[arg-type]  # no zygote is asked


def test_the_secrets_are_the_kits_private_folders_and_the_callers(tmp_path):
    """Are the kit's private folders (and the caller's additions) unreadable, the kit and its Python unwritable,
    and a path that does not exist left out?"""
    export = tmp_path / "export"
    export.mkdir()
    unreadable, unwritable = tiers.secrets((export, tmp_path / "missing"), (tmp_path,))
    assert unreadable == [str(KIT_ROOT / part) for part in tiers.PRIVATE if (KIT_ROOT / part).exists()] + [str(export)]
    assert str(KIT_ROOT / "solutions") in unreadable and str(tmp_path / "missing") not in unreadable
    assert unwritable[0] == str(KIT_ROOT) and unwritable[-1] == str(tmp_path)


def test_a_readable_secret_comes_with_the_command_that_closes_it():
    """When the probe could read a secret, does the reason give the chmod that closes it (paths quoted), and is any
    other reason left as it is?"""
    reason = "it could read /srv/course export; it could write /srv/kit"
    fixed = tiers._with_fix(reason, ["/srv/course export", "/srv/other"])
    assert fixed.startswith(reason + " (make it unreadable to other users, e.g. chmod -R go-rwx '/srv/course export':")
    assert "/srv/other" not in fixed
    assert tiers._with_fix("SandboxError: unshare: Operation not permitted", ["/srv/a"]) == (
        "SandboxError: unshare: Operation not permitted"
    )


def test_the_probe_request_gives_the_uid_its_work_folder_only(tmp_path):
    """Does a probe of a tier with a uid get the scratch opened to be entered (0711) and the work folder given to
    the uid; and does the plain process tier check no secret (it keeps none)?"""
    secrets = (["/a"], ["/b"])
    (tmp_path / "p").mkdir()
    plain = tiers.probe_request("process", tmp_path / "p", "cpu", None, secrets)
    assert plain["must_not_read"] == [] and plain["must_not_write"] == [] and "uid" not in plain
    (tmp_path / "u").mkdir()
    if ROOT:
        uid = tiers.probe_request("uid", tmp_path / "u", "cpu", 64995, secrets)
        assert uid["uid"] == 64995 and uid["must_not_read"] == ["/a"] and uid["must_not_write"] == ["/b"]
        assert (tmp_path / "u").stat().st_mode & 0o777 == 0o711 and (tmp_path / "u" / "work").stat().st_uid == 64995


HIERARCHY = Hierarchy(1, {"memory": Path("/m"), "pids": Path("/p")})
NO_MEMORY = Hierarchy(2, {"": Path("/x")}, frozenset({"cpu"}))


def test_the_results_say_what_bounds_memory_and_processes():
    """Are the limits put in words per case: rlimits in the plain process (RLIMIT_DATA on CUDA), the cgroup
    alone where it bounds both, and where it does not the rlimits, the refused calls, the watch (not in userns,
    whose processes the grader cannot read) and in the uid tier the shared scratch places?"""
    assert tiers._limits_words("process", None, "", "cpu") == (
        "rlimits per process (memory by RLIMIT_AS, every mapping counted, processes by RLIMIT_NPROC)"
    )
    assert "memory by RLIMIT_DATA" in tiers._limits_words("process", None, "", "cuda")
    assert tiers._limits_words("hardened", HIERARCHY, "cgroup v1 (memory, pids)") == "cgroup v1 (memory, pids)"
    assert tiers._limits_words("uid", NO_MEMORY, "cgroup v2 (cpu)") == (
        "cgroup v2 (cpu); memory bounded per process (RLIMIT_AS, every mapping counted; memfd, System V shared "
        "memory and message queues refused); the memory of its processes together watched; processes by "
        f"RLIMIT_NPROC; its files in {', '.join(SHARED_SCRATCH)} counted with its scratch"
    )
    userns = tiers._limits_words("userns", None, "no writable cgroup hierarchy here")
    assert "watched" not in userns and userns.endswith("processes by RLIMIT_NPROC (no writable cgroup hierarchy here)")
