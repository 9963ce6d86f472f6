"""What a grader holds while it grades: the isolation (its words, its jobs, what it closes) and its scratch."""

from autograder.sandbox.host.cgroups import CgroupLimits
from autograder.sandbox.host.runtime import TIER_WORDS, Isolation, Runtime
from autograder.sandbox.host.session import StudentLimits


class Recorder:
    """Stands for a hierarchy, a uid pool or a zygote: records what the runtime asks of it."""

    def __init__(self):
        self.calls = []

    def job(self, name, limits):
        self.calls.append(("job", name, limits))
        return "a job"

    def close(self):
        self.calls.append(("close",))


def test_jobs_are_made_only_where_a_hierarchy_isolates():
    """Does a job get the student's memory and process limits from the hierarchy, and none in the process tier
    or where there is no hierarchy?"""
    hierarchy = Recorder()
    limits = StudentLimits(memory_bytes=3 << 30, processes=7)
    assert Isolation("hardened", "cgroup v1", hierarchy=hierarchy).new_job("j1", limits) == "a job"
    assert hierarchy.calls == [("job", "j1", CgroupLimits(3 << 30, 7))]
    assert Isolation("process", "rlimits", hierarchy=Recorder()).new_job("j2", limits) is None
    assert Isolation("uid", "rlimits").new_job("j3", limits) is None


def test_an_isolation_says_its_tier_in_words():
    """Is the tier described with its words and limits, and only the process tier called not hardened?"""
    isolation = Isolation("uid", "processes by RLIMIT_NPROC", why="not hardened: needs namespaces")
    assert isolation.describe() == f"uid ({TIER_WORDS['uid']}; processes by RLIMIT_NPROC)"
    assert isolation.as_dict() == {
        "tier": "uid",
        "limits": "processes by RLIMIT_NPROC",
        "why": "not hardened: needs namespaces",
    }
    assert isolation.hardened and not Isolation("process", "").hardened
    assert "NOT isolated" in Isolation("process", "").describe()


def test_closing_gives_back_the_uids_and_only_a_hierarchy_it_owns():
    """Does close give back the uid pool, and close the hierarchy only when this isolation owns it (grade-all's
    workers share one)?"""
    pool, owned, shared = Recorder(), Recorder(), Recorder()
    Isolation("hardened", "", hierarchy=owned, uid_pool=pool).close()
    Isolation("hardened", "", hierarchy=shared, owns_hierarchy=False).close()
    assert pool.calls == [("close",)] and owned.calls == [("close",)] and shared.calls == []


def test_a_submission_folder_is_the_graders_and_opened_to_uids_only_in_the_uid_tier(tmp_path):
    """Is each submission's folder fresh under the scratch root, the root private to the grader, entered by other
    uids (0711) only in the uid tier; and does close end the zygote and remove the scratch?"""
    zygote = Recorder()
    runtime = Runtime(zygote, Isolation("hardened", ""), scratch_root=tmp_path / "scratch")
    (tmp_path / "scratch").mkdir(mode=0o700)
    first, second = runtime.submission_folder(), runtime.submission_folder()
    assert first != second and first.parent == second.parent == tmp_path / "scratch"
    assert (tmp_path / "scratch").stat().st_mode & 0o777 == 0o700
    uid_runtime = Runtime(Recorder(), Isolation("uid", ""), scratch_root=tmp_path / "uid-scratch")
    (tmp_path / "uid-scratch").mkdir(mode=0o700)
    uid_runtime.submission_folder()
    assert (tmp_path / "uid-scratch").stat().st_mode & 0o777 == 0o711
    runtime.close()
    assert zygote.calls == [("close",)] and not (tmp_path / "scratch").exists()
