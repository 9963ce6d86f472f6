"""Does similarity.csv put a copy first, renamed and reordered or not, and leave the release's own code out; is it
what copydetect's own pipeline gives, every pair ranked (or MinHash's, on a large class), and read back when
nothing changed?"""

import ast
import csv
import io
import itertools
import os
import random
import signal
import time

import pytest

from autograder import KIT_ROOT, assignments
from autograder.deliver.class_view import similarity
from autograder.deliver.class_view.candidates import THRESHOLD
from autograder.deliver.class_view.fingerprints import normalised
from autograder.deliver.class_view.similarity import MIN_FINGERPRINTS, Pair, limit_for, similar_pairs, write_similarity
from autograder.deliver.class_view.sources import code_record, release_code
from autograder.synthetic import students

from ...sandbox.forked import in_a_child, sigterm_as_it_forks

copydetect = pytest.importorskip("copydetect")

COHORT = KIT_ROOT / "tests" / "data" / "cohort" / "attention_numpy"


@pytest.fixture(scope="module")
def numpy_assignment():
    return assignments.get("attention_numpy")


def cohort() -> dict:
    return {path.stem: path for path in sorted(COHORT.glob("*.py"))}


def pairs_of(paths: dict, assignment, **options) -> list[Pair]:
    """similar_pairs of the submissions at paths, each normalised as grading keeps it (deliver/class_view/sources.py)."""
    normal = {key: code_record(path, assignment).normalised for key, path in paths.items()}
    return similar_pairs(normal, list(release_code(assignment)), **options)


class Renamer(ast.NodeTransformer):
    """Every local name, argument and helper gets a new name (the graded names keep theirs: a copy must still run)."""

    def __init__(self, keep: set[str]):
        self.keep = keep | {"np", "math", "range", "zip", "slice", "len", "float"}
        self.names: dict[str, str] = {}

    def new(self, name: str) -> str:
        if name in self.keep:
            return name
        return self.names.setdefault(name, f"renamed_{len(self.names)}")

    def visit_Name(self, node):
        node.id = self.new(node.id)
        return node

    def visit_arg(self, node):
        node.arg = self.new(node.arg)
        return node

    def visit_FunctionDef(self, node):
        node.name = self.new(node.name)
        self.generic_visit(node)
        return node


def disguised(source: str, graded: tuple[str, ...], seed: int) -> str:
    """The same program, every variable and helper renamed, its functions in another order, reformatted."""
    tree = Renamer(set(graded)).visit(ast.parse(source))
    head = [node for node in tree.body if not isinstance(node, ast.FunctionDef)]
    functions = [node for node in tree.body if isinstance(node, ast.FunctionDef)]
    random.Random(seed).shuffle(functions)
    tree.body = head + functions
    return ast.unparse(tree)


def test_a_renamed_and_reordered_copy_comes_first(numpy_assignment, tmp_path):
    """Two copies, one renamed and reordered by hand (fay of eli) and one by machine (of ben):
    are they the two most alike pairs, far above any two students who wrote their own code?"""
    paths = cohort()
    copy = tmp_path / "gus.py"
    copy.write_text(disguised(paths["ben"].read_text(), numpy_assignment.graded, seed=3))
    assert "renamed_" in copy.read_text() and "def softmax" in copy.read_text()
    paths["gus"] = copy
    pairs = pairs_of(paths, numpy_assignment)
    assert {(p.a, p.b) for p in pairs[:2]} == {("eli", "fay"), ("ben", "gus")}, pairs[:3]
    # a copy scores above 0.9 under Python 3.11 and 0.86 under 3.10 (the same copydetect 0.5.0):
    # either is far above the 0.5 that students who wrote their own code stay under
    assert min(p.similarity for p in pairs[:2]) > 0.8
    assert max(p.similarity for p in pairs[2:]) < 0.5  # students who wrote their own code share idioms only
    assert [p.similarity for p in pairs] == sorted((p.similarity for p in pairs), reverse=True)


SOFTMAX = """\
    largest = np.max(x, axis=axis, keepdims=True)
    exps = np.exp(x - largest)
    total = np.sum(exps, axis=axis, keepdims=True)
    return exps / total
"""
ATTENTION = """\
    scores = []
    for row in x:
        scores.append([float(row @ other) for other in x])
    return softmax(np.array(scores), axis=1) @ x
"""


def with_exercise(stubs: str, number: int, code: str) -> str:
    """The stub module with one exercise's raise line replaced by the code."""
    return "\n".join(code.rstrip("\n") if f"Exercise {number} (" in line else line for line in stubs.split("\n"))


def test_the_release_own_code_is_no_reason_to_look_alike(numpy_assignment, tmp_path):
    """Students who handed in the stubs with one exercise of their own: do the stubs (docstrings, signatures),
    which all of them hold, leave them apart, while two who wrote the same exercise the same way pair up?"""
    stubs = numpy_assignment.stub_path.read_text()
    files = {
        "ann": with_exercise(stubs, 2, SOFTMAX),
        "cat": with_exercise(stubs, 2, SOFTMAX),
        "bob": with_exercise(stubs, 3, ATTENTION),
        "dan": stubs,  # nothing of their own
    }
    for name, text in files.items():
        (tmp_path / f"{name}.py").write_text(text)
    pairs = pairs_of({name: tmp_path / f"{name}.py" for name in files}, numpy_assignment)
    assert [(p.a, p.b, p.similarity) for p in pairs[:1]] == [("ann", "cat", 1.0)]
    assert all("dan" not in (p.a, p.b) for p in pairs)
    assert all(p.similarity < 0.2 for p in pairs[1:]), pairs  # those that share any fingerprint at all


def test_the_csv_reads_safely(tmp_path):
    """A name that a spreadsheet would run as a formula: is it written as text?"""
    path = tmp_path / "similarity.csv"
    write_similarity(path, [Pair("a", "b", 0.96, 0.95, 0.97)], {"a": "=HYPERLINK(1)", "b": "Bo"})
    with open(path, newline="") as file:
        rows = list(csv.DictReader(file))
    assert rows == [
        {
            "similarity": "0.9600",
            "student_a": "a",
            "student_b": "b",
            "share_of_a": "0.9500",
            "share_of_b": "0.9700",
            "name_a": "'=HYPERLINK(1)",
            "name_b": "Bo",
        }
    ]


def copydetects_own(normal: dict[str, str], release: list[str], limit: int) -> list[Pair]:
    """similarity.csv's pairs as copydetect alone gives them: its fingerprints (its hash()) of every student, the
    release's struck, every pair ranked by the share of fingerprints it shares, the best compared by copydetect."""
    CodeFingerprint = copydetect.CodeFingerprint
    own = [CodeFingerprint("r.py", 25, 1, filter=False, fp=io.StringIO(normalised(p))).hashes for p in release]
    boilerplate = sorted(set().union(*own))
    prints = {
        k: CodeFingerprint("s.py", 25, 1, boilerplate, filter=False, fp=io.StringIO(t)) for k, t in normal.items()
    }
    keys = [k for k in normal if len(prints[k].hashes) >= MIN_FINGERPRINTS]
    ranked = []
    for (i, a), (j, b) in itertools.combinations(enumerate(keys), 2):
        shared = len(prints[a].hashes & prints[b].hashes)
        if shared:
            ranked.append((-2 * shared / (len(prints[a].hashes) + len(prints[b].hashes)), i, j))
    pairs = []
    for _, i, j in sorted(ranked)[:limit]:
        a, b = keys[i], keys[j]
        _, (share_a, share_b), _ = copydetect.compare_files(prints[a], prints[b])
        covered_a, covered_b = float(prints[a].token_coverage), float(prints[b].token_coverage)
        both = (share_a * covered_a + share_b * covered_b) / (covered_a + covered_b)
        pairs.append(Pair(a, b, round(float(both), 4), round(float(share_a), 4), round(float(share_b), 4)))
    return sorted(pairs, key=lambda p: (-p.similarity, p.a, p.b))


def synthetic_class(size: int, seed: int = 0) -> dict[str, str]:
    """The normalised code of a synthetic class (autograder/synthetic.py: the kit's samples and mistakes, copies)."""
    return {student.key: student.normal for student in students(assignments.get("mha"), size, seed)}


@pytest.mark.slow
def test_the_pairs_are_copydetects_own(numpy_assignment, tmp_path):
    """On the cohort with a renamed and reordered copy, and on a synthetic class of 150, are the pairs (who, in
    which order, with which figures) those copydetect alone gives, with its own fingerprints of every pair?"""
    paths = cohort()
    (tmp_path / "gus.py").write_text(disguised(paths["ben"].read_text(), numpy_assignment.graded, seed=3))
    paths["gus"] = tmp_path / "gus.py"
    normal = {key: code_record(path, numpy_assignment).normalised for key, path in paths.items()}
    release = list(release_code(numpy_assignment))
    assert similar_pairs(normal, release) == copydetects_own(normal, release, 50)
    mha = assignments.get("mha")
    normal = synthetic_class(150)
    release = list(release_code(mha))
    assert similar_pairs(normal, release, jobs=2) == copydetects_own(normal, release, limit_for(150))


@pytest.mark.slow
def test_minhash_lists_the_same_top_pairs(tmp_path):
    """On synthetic classes of 400, is what MinHash lists (exact_up_to=0), down to the pairs that share less than
    THRESHOLD of their fingerprints, what every pair's ranking lists, figures included?"""
    mha = assignments.get("mha")
    release = list(release_code(mha))
    for seed in (3, 4):
        normal = synthetic_class(400, seed)
        exact = similar_pairs(normal, release, exact_up_to=10**9, jobs=2)
        minhash = similar_pairs(normal, release, exact_up_to=0, jobs=2)
        above = [p for p in exact if p.similarity / (2 - p.similarity) >= THRESHOLD + 0.05]
        assert len(above) >= 10
        assert minhash[: len(above)] == above


def test_a_rerun_reads_back_what_did_not_change(numpy_assignment, tmp_path, monkeypatch):
    """With the same code, are the pairs read back without copydetect; with one student's code changed, is
    copydetect asked only about the pairs that student is in?"""
    normal = {key: code_record(path, numpy_assignment).normalised for key, path in cohort().items()}
    release = list(release_code(numpy_assignment))
    first = similar_pairs(normal, release, cache=tmp_path)
    asked = []
    real = similarity.compare

    def counted(pairs, *args, **kwargs):
        asked.extend(pairs)
        return real(pairs, *args, **kwargs)

    monkeypatch.setattr(similarity, "compare", counted)
    assert similar_pairs(normal, release, cache=tmp_path) == first and asked == []
    normal["ada"] = normal["ada"].replace("1000", "10000")  # ada corrects her slip
    again = similar_pairs(normal, release, cache=tmp_path)
    assert asked and all("ada" in pair for pair in asked)
    assert {(p.a, p.b) for p in again} == {(p.a, p.b) for p in first}
    assert [p for p in again if "ada" not in (p.a, p.b)] == [p for p in first if "ada" not in (p.a, p.b)]


def test_copies_of_one_code_are_compared_once(numpy_assignment, monkeypatch):
    """A class of six copies of one submission (every pair the same two codes): is copydetect asked once, and does
    every pair get its figures?"""
    text = code_record(COHORT / "eli.py", numpy_assignment).normalised
    normal = {f"s{i}": text for i in range(6)}
    asked = []
    real = similarity.compare
    monkeypatch.setattr(similarity, "compare", lambda pairs, *args: asked.extend(pairs) or real(pairs, *args))
    pairs = similar_pairs(normal, list(release_code(numpy_assignment)))
    assert len(asked) == 1 and len(pairs) == 15
    assert {(p.similarity, p.share_a, p.share_b) for p in pairs} == {(1.0, 1.0, 1.0)}


def _sigterm_is_default(_pair):
    return (signal.getsignal(signal.SIGTERM) == signal.SIG_DFL,) * 3


def test_the_pools_workers_end_on_sigterm(monkeypatch):
    """A command turns SIGTERM into KeyboardInterrupt (interrupts.py) and a forked worker inherits that, which left a
    worker stuck on the pool's lock when the pool closed (it ends its workers with SIGTERM) and the command waiting for
    ever: does each worker of the pool that compares pairs run with SIGTERM's default action?"""
    from autograder.interrupts import interrupt_on_terminate

    before = signal.getsignal(signal.SIGTERM)
    monkeypatch.setattr(similarity, "_figures", _sigterm_is_default)  # what a forked worker runs
    try:
        interrupt_on_terminate()
        found = similarity.compare([("a", "b")] * similarity.POOL_FROM, {"a": "x = 1", "b": "x = 1"}, [], jobs=2)
    finally:
        signal.signal(signal.SIGTERM, before)
    assert found == [(True, True, True)] * similarity.POOL_FROM


def _the_pid_that_compares(_pair):
    time.sleep(0.005)  # each worker takes a share of the chunks
    return (os.getpid(),) * 3


def _pool_told_as_it_forks(flag: str) -> dict:
    from autograder.interrupts import interrupt_on_terminate

    interrupt_on_terminate()  # the command's handler
    os.register_at_fork(after_in_child=sigterm_as_it_forks(flag))
    similarity._figures = _the_pid_that_compares  # in this child only
    found = similarity.compare([("a", "b")] * similarity.POOL_FROM, {"a": "x = 1", "b": "x = 1"}, [], jobs=2)
    return {"told": int(open(flag).read()), "compared_by": sorted({pid for pid, _, _ in found})}


def test_a_worker_told_to_end_as_it_forks_ends_and_the_pool_goes_on(tmp_path):
    """A SIGTERM that reaches one of the pool's workers as it forks (a pool closing on a worker not yet started)
    ran the command's handler there, outside any try of the worker's: does the worker end by it, before it compares
    anything, with every pair still compared by the others?"""
    run = in_a_child(lambda: _pool_told_as_it_forks(str(tmp_path / "told")))
    assert run["compared_by"], "no pair was compared"
    assert run["told"] not in run["compared_by"]
