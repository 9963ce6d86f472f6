"""GitHub Classroom's cloned repositories: one student per repository, the login being its name less the assignment's."""

from __future__ import annotations

import pytest

from autograder.deliver.intake import Upload, classroom, read_intake
from autograder.deliver.intake.reader import Reader

from .exports import NOTEBOOK, build, by_key, git_repository, why


@pytest.mark.parametrize("as_zip", [False, True], ids=["folder", "zip"])
def test_classroom_one_repository_per_login(tmp_path, as_zip):
    """Is each cloned repository one student, named by the login after the assignment's slug, a stray file skipped?"""
    files = {
        "mha-submissions/mha-octocat/.git/HEAD": b"ref: refs/heads/main\n",
        "mha-submissions/mha-octocat/mha.ipynb": NOTEBOOK,
        "mha-submissions/mha-hu-bot/.git/HEAD": b"ref: refs/heads/main\n",
        "mha-submissions/mha-hu-bot/src/mha.py": b"",
        "mha-submissions/README.md": b"cloned by gh classroom",
    }
    intake = read_intake(build(tmp_path, files, as_zip=as_zip), tmp_path / "scratch")
    assert intake.source == "classroom"
    subs = by_key(intake)
    assert set(subs) == {"octocat", "hu-bot"}
    assert (subs["hu-bot"].student_id, subs["hu-bot"].path.name) == ("hu-bot", "mha-hu-bot")
    assert "repository" in why(intake, "README.md")


def logins(tmp_path, root_name: str, repos: list[str]) -> list[tuple[str, str]]:
    """(login, repository) per repository cloned under a folder named root_name."""
    root = tmp_path / root_name
    for repo in repos:
        (root / repo / ".git").mkdir(parents=True)
    drafts = classroom.read(Reader(root, tmp_path / "scratch", (".ipynb",), []), root)
    assert all(d.name == d.student_id for d in drafts)
    return sorted((d.student_id, d.origin) for d in drafts)


@pytest.mark.parametrize(
    "root_name, repos, found",
    [
        # gh classroom's folder names the assignment: its slug comes off even for a lone repository
        ("mha-submissions", ["mha-octocat"], [("octocat", "mha-octocat")]),
        # a login that looks like a longer slug keeps its own part
        ("mha-submissions", ["mha-lab-jo", "mha-lab-al"], [("lab-al", "mha-lab-al"), ("lab-jo", "mha-lab-jo")]),
        # a folder of another name: the prefix every repository shares, up to its last '-'
        ("clones", ["hw1-ann-lee", "hw1-bob"], [("ann-lee", "hw1-ann-lee"), ("bob", "hw1-bob")]),
        # one repository in a folder of another name: no prefix to tell, the whole name
        ("clones", ["hw1-ann"], [("hw1-ann", "hw1-ann")]),
        # the folder's slug not on every repository: the shared prefix instead
        ("mha-submissions", ["mha-ann", "other-bob"], [("mha-ann", "mha-ann"), ("other-bob", "other-bob")]),
    ],
)
def test_classroom_login_is_the_repository_less_the_assignment(tmp_path, root_name, repos, found):
    """Is the assignment's slug taken off each repository's name, from gh classroom's folder or the names' shared prefix?"""
    assert logins(tmp_path, root_name, repos) == found


def test_classroom_a_repository_named_the_prefix_alone_keeps_its_name(tmp_path):
    """Is a repository whose whole name is the prefix kept under that name, never an empty login?"""
    assert logins(tmp_path, "mha-submissions", ["mha-", "mha-jo"]) == [("jo", "mha-jo"), ("mha-", "mha-")]


def test_classroom_the_last_commits_time_where_the_clone_has_one(tmp_path):
    """Is each clone's last commit (its id and the committer's time) recorded, a repository without one left without
    a time, and lateness left unknown (a clone holds no due date)?"""
    root = tmp_path / "mha-submissions"
    commit = git_repository(root / "mha-octocat", {"mha.ipynb": NOTEBOOK}, "2024-01-31T23:59:00-08:00")
    (root / "mha-hu-bot" / ".git").mkdir(parents=True)
    (root / "mha-hu-bot" / ".git" / "HEAD").write_text("ref: refs/heads/main\n")  # cloned, nothing committed
    subs = by_key(read_intake(root, tmp_path / "scratch"))
    octocat, bot = subs["octocat"], subs["hu-bot"]
    assert (octocat.submitted_at, octocat.late) == ("2024-01-31T23:59:00-08:00", None)
    assert octocat.uploads == (Upload("mha-octocat/", True, commit, None, "2024-01-31T23:59:00-08:00"),)
    assert (bot.submitted_at, bot.uploads) == ("", (Upload("mha-hu-bot/", True),))
