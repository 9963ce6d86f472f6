"""The hostile set, graded and judged: shared by the tests and by runs in other host kinds.

    python -m tests.sandbox.hostile_run OUT.json [--isolation TIER] [--device cuda] [--only NAME ...]

grades every hostile submission in a Grader of its own (in whatever host this process
runs: a seccomp filter that refuses namespaces, a cgroup-v2-only mount namespace, an
unprivileged user) and writes, per submission, the problems found (an empty list when
it earned exactly its honest points, changed nothing in its submission's folder and left
nothing behind), the tier it ran in, and the kit's files that changed; then grades the
reference, which must still get full marks.
"""

from __future__ import annotations

import atexit
import functools
import hashlib
import json
import os
import re
import secrets
import shutil
import sys
import tempfile
from pathlib import Path

from autograder import KIT_ROOT, assignments
from autograder.errors import KitError
from autograder.public.loader import SubmissionError

HOSTILE = KIT_ROOT / "tests" / "data" / "hostile"
AFTER = "the reference, graded after the hostile set"
EXPECTED = json.loads((HOSTILE / "expected.json").read_text())
# 1.5 CPU seconds an exercise: ten times what the reference's dearest exercise takes (display_attention, 0.15 on
# the course machine). Each attack that burns CPU until it is stopped burns that much in every run of the set, and
# `make test` runs it whole in five hosts.
# On a GPU, the student's process starts CUDA within its loading's budget (grading's default is 10 s): 3 s there.
CONFIG = {"timeout": 1.5, "memory": 1.0, "processes": 32}
CUDA_TIMEOUT = 3.0
# This run's own token, written into a hostile file where it says RUN-TOKEN: the names of the secret that
# leave_a_secret.py leaves and look_for_the_secret.py looks for. In the uid tier every grader on a host shares
# /tmp and System V with the others' students: a secret left by another run graded at the same moment (another
# test process, another tier's run) is not this run's to find.
RUN = f"{os.getpid()}-{secrets.token_hex(4)}"


# ------------------------------------------------------------------ submissions


def make_submission(mha, name: str, folder: Path) -> Path:
    """The submission for one hostile entry: the reference with the attack appended (this run's token for RUN-TOKEN,
    the grading kit's folder for KIT-ROOT), laid out as it says."""
    attack = (HOSTILE / name).read_text().replace("RUN-TOKEN", RUN).replace("KIT-ROOT", str(KIT_ROOT))
    source = mha.reference_path.read_text() + "\n\n" + attack
    layout = EXPECTED[name].get("layout", "file")
    if layout == "file":
        path = folder / name
        path.write_text(source)
        return path
    if layout in NOTEBOOKS:
        path = folder / name.replace(".py", ".ipynb")
        NOTEBOOKS[layout](path, source)
        return path
    root = folder / name.removesuffix(".py")
    root.mkdir()
    (root / "work.py").write_text(source)
    if layout == "links":
        for link, target in {
            "cwd": "/proc/self/cwd",
            "environ": "/proc/self/environ",
            "shadow": "/etc/shadow",
            "random": "/dev/urandom",
            "kit": str(KIT_ROOT),
        }.items():
            os.symlink(target, root / link)
    elif layout == "deep notebook":
        (root / "scratch.ipynb").write_text("[" * 200_000 + "]" * 200_000)
    elif layout == "big notebook":
        with open(root / "scratch.ipynb", "wb") as file:
            file.truncate(200 * 2**20)  # 200 MB beside the code
    elif layout == "private folder":
        os.chmod(root, 0o700)
    return root


def notebook_text(cells: list[dict]) -> str:
    """A notebook's JSON, as Jupyter writes it (indent 1)."""
    metadata = {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}}
    return json.dumps({"cells": cells, "metadata": metadata, "nbformat": 4, "nbformat_minor": 5}, indent=1) + "\n"


def code_cell(source: str) -> dict:
    return {"cell_type": "code", "execution_count": 1, "metadata": {}, "outputs": [],
            "source": source.splitlines(keepends=True)}  # fmt: skip


def answer_cell(text: str) -> dict:
    return {"cell_type": "markdown", "metadata": {}, "source": [text]}


def big_written_answer(path: Path, source: str) -> None:
    """The code beside a written answer of 40 MB and 100,000 answer cells: 48 MB, made once a process."""
    shutil.copyfile(_big_written_answer(source), path)


@functools.cache
def _big_written_answer(source: str) -> Path:
    folder = Path(tempfile.mkdtemp(prefix="kit-hostile-"))
    atexit.register(shutil.rmtree, folder, True)
    answers = [answer_cell(f"Answer {i}: as above.") for i in range(100_000)]
    cells = [code_cell(source), answer_cell("My answer, at length. " * 1_820_000), *answers]
    (folder / "notebook.ipynb").write_text(notebook_text(cells))
    return folder / "notebook.ipynb"


def truncated_notebook(path: Path, source: str) -> None:
    """The notebook cut off two thirds of the way through, as an interrupted upload leaves it."""
    text = notebook_text([code_cell(source), answer_cell("My answer.")])
    path.write_text(text[: 2 * len(text) // 3])


def merge_conflict(path: Path, source: str) -> None:
    """The notebook as a merge with a partner's leaves it: conflict markers around the answer both changed."""
    ours = notebook_text([code_cell(source), answer_cell("My answer.")]).splitlines(keepends=True)
    theirs = notebook_text([code_cell(source), answer_cell("Our answer.")]).splitlines(keepends=True)
    i = next(k for k, (a, b) in enumerate(zip(ours, theirs)) if a != b)
    conflict = ["<<<<<<< HEAD\n", ours[i], "=======\n", theirs[i], ">>>>>>> partner\n"]
    path.write_text("".join(ours[:i] + conflict + ours[i + 1 :]))


NOTEBOOKS = {"big written answer": big_written_answer, "truncated notebook": truncated_notebook,
             "merge conflict": merge_conflict}  # fmt: skip


def grade(grader, name: str, submission: Path):
    """Grade one hostile submission. For 'unreadable copy', on a host where the sandbox's uid cannot read the kit's
    copy of it (a file system that maps root to nobody, an ACL): the copy's folder closed (0700) once made, as the
    kit's own copy never leaves it."""
    if EXPECTED[name].get("layout") != "unreadable copy":
        return grader.grade(submission)
    opened = grader.open_session

    def closed(submission: Path, folder: Path, device: str = ""):
        session, entry, notes = opened(submission, folder, device)
        os.chmod(folder / "submission", 0o700)
        return session, entry, notes

    grader.open_session = closed
    try:
        return grader.grade(submission)
    finally:
        del grader.open_session


# ------------------------------------------------------------------ judging


TIERS = ("hardened", "userns", "uid", "process")  # a tier's name in a key names the tier, never a word of limits


def on_this_host(table: dict, isolation: dict, device: str = "cpu"):
    """The value of ``table`` for this host, or None. A key names the host by words, each the tier's name, the
    device graded on ("cuda") or a word of its limits ("uid", "RLIMIT_AS": memory bounded per process, "uid
    RLIMIT_AS": both): the key of most words that all hold here decides, the tier's name before a word of its
    limits."""
    tier = isolation.get("tier")
    words = set(re.findall(r"\w+", isolation.get("limits", ""))) - set(TIERS) | {tier, device.split(":")[0]}
    holding = [key.split() for key in table if set(key.split()) <= words]
    chosen = max(holding, key=lambda key: (len(key), tier in key), default=None)
    return table[" ".join(chosen)] if chosen else None


def expected_losses(name: str, isolation: dict, graded: tuple[str, ...], device: str = "cpu") -> dict[str, str]:
    """The losses expected on this host: `loses`, or `loses_in` for this host (on_this_host)."""
    expected = EXPECTED[name]
    losses = on_this_host(expected.get("loses_in", {}), isolation, device) or expected["loses"]
    return {n: losses["*"] for n in graded} if "*" in losses else losses


def refusal(name: str, isolation: dict) -> tuple[type[Exception], str] | None:
    """How the submission is refused on this host before any check is graded: the kit's failure (KitError,
    `kit_error_in`: not graded, exit 3) or the student's (SubmissionError, `not_graded`), with a pattern of its
    reason; None when it is graded."""
    expected = EXPECTED[name]
    kit = on_this_host(expected.get("kit_error_in", {}), isolation, isolation.get("device", "cpu"))
    if kit is not None:
        return KitError, kit
    return (SubmissionError, expected["not_graded"]) if "not_graded" in expected else None


def refused_as_expected(name: str, isolation: dict, error: Exception) -> list[str]:
    """What is wrong with a refusal (an empty list when it is the one expected here, with its exit status)."""
    from autograder.results.outcome import outcome_of_error

    expected = refusal(name, isolation)
    if expected is None:
        return [f"not graded: {error}"]
    kind, words = expected
    problems = [] if isinstance(error, kind) and re.search(words, str(error)) else [f"not graded so: {error}"]
    status = outcome_of_error(error).exit_code
    if status != (3 if kind is KitError else 2):
        problems.append(f"exit status {status} for {type(error).__name__}")
    return problems


def judge(name: str, lost: list[str], report, results_path: Path | None) -> list[str]:
    """What is wrong with one hostile grading (an empty list when all is as expected)."""
    expected = EXPECTED[name]
    losses = expected_losses(name, report.isolation, report.order, report.device)
    problems = []
    if sorted(lost) != sorted(losses):
        problems.append(f"lost {lost}, expected {sorted(losses)}")
    for lost_name, words in losses.items():
        messages = " ".join(c.message for c in report.checks if c.name == lost_name).lower()
        either = words if isinstance(words, list) else [words]  # a list: any one of these, as the host's load decides
        if not any(word.lower() in messages for word in either):
            problems.append(f"{lost_name}: {words!r} not in {messages[:300]!r}")
    for carried, words in expected.get("carried", {}).items():
        messages = " ".join(c.message for c in report.checks if c.name == carried)
        if carried in losses or words not in messages:
            problems.append(f"{carried}: not graded with {words!r}: {messages[:300]!r}")
    for words in expected.get("notes", []):
        if not any(words in note for note in report.notes):
            problems.append(f"no note says {words!r}: {report.notes}")
    if results_path is not None:
        text = results_path.read_text()
        data = json.loads(text)
        if abs(data["score"] - float(report.score)) > 1e-6 or "FORGED" in text:
            problems.append("results.json is not the grader's own")
        if len(text) > 400_000:
            problems.append(f"results.json holds {len(text)} characters")
        if "\x1b" in text or "\\u001b" in text:
            problems.append("results.json holds a raw escape character")
    return problems


def folder_state(folder: Path) -> dict[str, tuple[int, int, int, int]]:
    """(mode, owner, size, mtime) of a folder and of everything in it: what grading must not change."""
    from autograder.public import trees

    state = {}
    for root, folders, files in trees.walk(folder):
        for name in [".", *folders, *files]:
            info = os.lstat(root / name)
            state[str((root / name).relative_to(folder))] = (info.st_mode, info.st_uid, info.st_size, info.st_mtime_ns)
    return state


def differing(before: dict, after: dict) -> list[str]:
    """The paths whose state differs between two snapshots (one made, gone, or changed), sorted."""
    return sorted(path for path in set(before) | set(after) if before.get(path) != after.get(path))


def changed_in(folder: Path, before: dict) -> list[str]:
    changed = differing(before, folder_state(folder))
    return [f"grading changed the submission's folder: {changed[:10]}"] if changed else []


# What the kit's own processes and the tests beside the set write while it runs: bytecode, the tests' tools, the kit's
# caches and outputs, git's files, and the type checker's cache (mypy's test writes it while another process of the
# suite runs the set).
NOT_THE_KITS = ("__pycache__", ".tools", "build", "out", ".git", ".mypy_cache")


def kit_files() -> dict[str, tuple]:
    """(size, mtime) of every file of the kit, its virtual environment included; for a CA bundle, its digest too
    (changed_kit_files)."""
    found: dict[str, tuple] = {}
    for folder, folders, files in os.walk(KIT_ROOT):
        folders[:] = [f for f in folders if f not in NOT_THE_KITS]
        for name in files:
            path = os.path.join(folder, name)
            try:
                stat = os.stat(path, follow_symlinks=False)
                found[path] = (stat.st_size, stat.st_mtime_ns)
                if name in CA_BUNDLES:
                    found[path] += (hashlib.sha256(Path(path).read_bytes()).hexdigest(),)
            except FileNotFoundError:
                continue
    return found


# A machine that inspects TLS may add its own certificate authority to every CA bundle it finds: the course's
# machines do, to certifi's in a virtual environment some minutes after it is made, which is while `make test`
# runs. Such a change, the bundle as it was with certificates appended, is the machine's and is no student's
# doing (in every sandboxed tier a student's uid cannot write the kit's files); any other change of it counts.
CA_BUNDLES = ("cacert.pem",)
_CERTIFICATES = re.compile(rb"(\s*-----BEGIN CERTIFICATE-----[A-Za-z0-9+/=\s]+-----END CERTIFICATE-----)*\s*")


def changed_kit_files(before: dict[str, tuple], after: dict[str, tuple]) -> list[str]:
    """The kit's files changed between two kit_files(), but for a CA bundle the machine added certificates to."""
    return [path for path in differing(before, after) if not _certificates_appended(path, before.get(path))]


def _certificates_appended(path: str, before: tuple | None) -> bool:
    if before is None or len(before) < 3:
        return False
    try:
        data = Path(path).read_bytes()
    except OSError:
        return False
    old, added = data[: before[0]], data[before[0] :]
    return hashlib.sha256(old).hexdigest() == before[2] and _CERTIFICATES.fullmatch(added) is not None


def leftovers(grader) -> list[str]:
    """Anything of a student that outlived its grading: processes of its uids, their files in the shared
    scratch places and System V objects, job cgroups, scratch."""
    import time

    from autograder.sandbox.host import uids

    problems = []
    pool = grader.isolation.uid_pool
    deadline = time.monotonic() + 2  # a killed process needs a moment to be reaped
    while True:
        left = [pid for uid in (pool.uids if pool else []) for pid in uids.processes_of(uid)]
        if not left or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    if left:
        problems.append(f"processes {left} of the students' uids")
    for uid in pool.uids if pool else []:
        files = [path for path, _ in uids.owned_entries(uid)]
        objects = uids.ipc_of(uid)
        if files or objects:
            problems.append(f"uid {uid} left {files[:5]} and System V objects {objects[:5]}")
    hierarchy = grader.isolation.hierarchy
    if hierarchy is not None:
        for parent in hierarchy.parents.values():
            mine = f"{os.getpid()}-"  # another grader's jobs on this host are none of ours
            jobs = (
                [p.name for p in parent.iterdir() if p.is_dir() and p.name.startswith(mine)] if parent.exists() else []
            )
            if jobs:
                problems.append(f"job cgroups {jobs} under {parent}")
    scratch = grader.runtime.scratch_root
    if scratch.exists() and any(scratch.iterdir()):
        problems.append(f"scratch left in {scratch}: {os.listdir(scratch)}")
    return problems


# ------------------------------------------------------------------ a run in another host


def main(argv=None) -> int:
    import argparse

    from autograder.config import GradingConfig
    from autograder.grade.engine import Grader
    from autograder.results.write import write_results

    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--isolation", default="auto")
    parser.add_argument("--only", nargs="*")
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args(argv)
    mha = assignments.get("mha")
    before = kit_files()
    report_of = {}
    work = Path(args.out).with_suffix(".work")
    shutil.rmtree(work, ignore_errors=True)
    config = {**CONFIG, "timeout": CONFIG["timeout"] if args.device == "cpu" else CUDA_TIMEOUT}
    with Grader(mha, GradingConfig(**config, isolation=args.isolation, device=args.device)) as grader:
        tier = {**grader.isolation.as_dict(), "device": grader.device}
        for name in args.only or sorted(EXPECTED):
            folder = work / name.replace("/", "_")
            folder.mkdir(parents=True)
            submission = make_submission(mha, name, folder)
            state = folder_state(folder)
            try:
                report = grade(grader, name, submission)
            except (SubmissionError, KitError) as error:
                report_of[name] = refused_as_expected(name, tier, error) + leftovers(grader)
                continue
            if refusal(name, tier) is not None:
                report_of[name] = [f"graded, but expected refused: {refusal(name, tier)}"]
                continue
            problems = changed_in(folder, state)
            results = write_results(report, folder / "out")
            lost = sorted(n for n, (s, m) in report.by_name().items() if s < m)
            report_of[name] = judge(name, lost, report, results) + problems + leftovers(grader)
        report = grader.grade(mha.reference_path)
        lost = sorted(n for n, (s, m) in report.by_name().items() if s < m)
        report_of[AFTER] = [f"lost {lost}"] if lost else []
    changed = changed_kit_files(before, kit_files())
    Path(args.out).write_text(json.dumps({"tier": tier, "problems": report_of, "changed": changed}, indent=1))
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
