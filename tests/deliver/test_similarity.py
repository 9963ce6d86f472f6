"""Does similarity.csv put a copy first, renamed and reordered or not, and leave the release's own code out?"""

import ast
import csv
import os
import random
import signal
import subprocess
import sys

import pytest

from autograder import KIT_ROOT, assignments
from autograder.deliver.similarity import Pair, similar_pairs, write_similarity

COHORT = KIT_ROOT / "tests" / "data" / "cohort" / "attention_numpy"


@pytest.fixture(scope="module")
def numpy_assignment():
    return assignments.get("attention_numpy")


def cohort() -> dict:
    return {path.stem: path for path in sorted(COHORT.glob("*.py"))}


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
    pairs = similar_pairs(paths, numpy_assignment)
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
    pairs = similar_pairs({name: tmp_path / f"{name}.py" for name in files}, numpy_assignment)
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


def test_the_pool_closes_where_sigterm_interrupts_the_command():
    """Every command turns SIGTERM into KeyboardInterrupt (interrupts.py), and the pool's workers inherit that: does
    the pool that normalises a large class still close, each time, with no worker's traceback and no hang?"""
    script = (
        "from autograder import assignments; from autograder.interrupts import interrupt_on_terminate; "
        "from autograder.deliver import similarity; interrupt_on_terminate(); "
        "a = assignments.get('attention_numpy'); "
        "[similarity.normalise_all(['x = 1'] * similarity.POOL_FROM, a, jobs=4) for _ in range(3)]; print('closed')"
    )
    run = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=KIT_ROOT,
        start_new_session=True,
    )  # fmt: skip
    try:
        out, err = run.communicate(timeout=240)
    except subprocess.TimeoutExpired:
        os.killpg(run.pid, signal.SIGKILL)  # the command and its stuck workers
        out, err = run.communicate()
    assert run.returncode == 0 and out == "closed\n" and "Traceback" not in err, err[-2000:]
