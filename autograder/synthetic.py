"""A synthetic class of the mha assignment as grading leaves it, made in seconds without grading anyone.

The class views (deliver/class_view/insight.py and the rest of grade-all's last steps) read what
grading wrote: each student's results.json and code.json (deliver/class_view/sources.py). This
module writes both for a class of any size, so that ``bench --class-steps`` times those
steps alone on 100, 1,000 or 10,000 students, and the tests compare MinHash's pairs
with every pair's on a class larger than the six of tests/data/cohort/.

Each student is one .py module (the ``folders`` intake), made of the kit's own code:

* a definition of each graded name, drawn among those of the kit's sample submissions
  (tests/data/heldout/mha/ and tests/data/fairness/mha/: a dozen styles, einsum, loops,
  bmm, chunks, ... and their slips) and of the reference; with probability
  MISTAKE_RATE instead the reference's definition with one known mistake of the
  catalogue (solutions/mha/mistakes.py) made in it;
* the rest of one sample's module (imports, constants, helpers), and the definitions
  in the graded order or, for one student in three, shuffled;
* a few copy others: COPIED of the class hand in an earlier student's code with the
  definitions reordered, PARTLY an earlier student's with one definition their own.

Its results.json is the kit's writer's (results/write.py), from a report of the
assignment's real checks (its plan and visible checks): every check passes but those
of a name that holds a mistake, where the first weighted check fails every case with
a behaviour of that mistake's own, naming it; one mistake in UNKNOWN_EVERY plays a
slip the catalogue does not know (named nowhere). Its code.json is what grading keeps,
made from each definition once: the excerpts and the normalised code (Pygments runs
once per distinct definition, not once per student).
"""

from __future__ import annotations

import ast
import copy
import hashlib
import json
import random
import tempfile
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from . import KIT_ROOT, assignments
from .assignments import Assignment
from .config import GradingConfig
from .deliver.class_view import fingerprints
from .deliver.class_view.sources import CodeRecord, StudentCode, record_key, write_record
from .deliver.grade_all.class_folder import student_folder
from .deliver.grade_all.regrade import grading_digest, student_record, submission_digest
from .deliver.intake import read_intake
from .grade.mistakes import catalogue
from .grade.plan import collect, hidden_summary
from .results.atomic import write_atomically
from .results.model import CheckResult
from .results.outcome import outcome_of
from .results.scoring import summarize
from .results.write import Provenance, results_json

ASSIGNMENT = "mha"
SAMPLES = ("tests/data/heldout/mha", "tests/data/fairness/mha")
MISTAKE_RATE = 0.08  # per graded name: the reference's definition with a known mistake
UNKNOWN_EVERY = 4  # one mistake in so many plays a slip the catalogue does not know
COPIED = 0.03  # of the class: another's code, definitions reordered
PARTLY = 0.02  # of the class: another's code with one definition of their own
SHUFFLED = 1 / 3  # of the class: definitions in an order of their own


@dataclass(frozen=True)
class Piece:
    """Code a student's module is made of, with what grading would keep of it."""

    source: str
    normal: str  # normalised (deliver/class_view/fingerprints.py); "" without Pygments
    mistake: str = ""  # the catalogue's id of the mistake it holds


@dataclass(frozen=True)
class Student:
    key: str
    head: Piece  # imports, constants and helpers
    definitions: tuple[tuple[str, Piece], ...]  # (graded name, its definition), in the module's order

    @property
    def source(self) -> str:
        return "\n\n".join([self.head.source] + [piece.source for _, piece in self.definitions]) + "\n"

    @property
    def normal(self) -> str:
        return self.head.normal + "".join(piece.normal for _, piece in self.definitions)

    @property
    def mistakes(self) -> dict[str, str]:
        return {name: piece.mistake for name, piece in self.definitions if piece.mistake}


@dataclass(frozen=True)
class Library:
    """The variants a synthetic student is drawn from."""

    heads: tuple[Piece, ...]
    styles: dict[str, tuple[Piece, ...]]  # graded name -> distinct definitions of the samples and the reference
    mistakes: dict[str, tuple[Piece, ...]]  # graded name -> the reference's definition with one mistake


def _piece(source: str, mistake: str = "") -> Piece:
    return Piece(source, fingerprints.normalised(source) if fingerprints.available() else "", mistake)


def _split(source: str, graded: tuple[str, ...]) -> tuple[str, dict[str, str]]:
    """A module's text: (everything but the graded definitions, each graded definition's source)."""
    lines = source.split("\n")
    found, head = {}, []
    for node in ast.parse(source).body:
        start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
        text = "\n".join(lines[start - 1 : node.end_lineno])
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name in graded:
            found[node.name] = text
        else:
            head.append(text)
    return "\n".join(head), found


@cache
def library(assignment: Assignment) -> Library:
    """The kit's sample modules and the reference, cut into heads and definitions; the catalogue's mistakes."""
    modules = [assignment.reference_path] + sorted(p for folder in SAMPLES for p in (KIT_ROOT / folder).glob("*.py"))
    heads: dict[str, Piece] = {}
    styles: dict[str, dict[str, Piece]] = {name: {} for name in assignment.graded}
    for path in modules:
        head, definitions = _split(path.read_text(encoding="utf-8"), assignment.graded)
        heads.setdefault(head, _piece(head))
        for name, text in definitions.items():
            if text not in styles[name]:
                styles[name][text] = _piece(text)
    reference = assignment.reference_path.read_text(encoding="utf-8")
    mistakes: dict[str, list[Piece]] = {name: [] for name in assignment.graded}
    for mistake in catalogue(assignment):
        edited = _split(mistake.source(reference), assignment.graded)[1]
        if mistake.target in edited:
            mistakes[mistake.target].append(_piece(edited[mistake.target], mistake.id))
    return Library(
        tuple(heads.values()),
        {name: tuple(found.values()) for name, found in styles.items()},
        {name: tuple(found) for name, found in mistakes.items()},
    )


def students(assignment: Assignment, n: int, seed: int = 0) -> list[Student]:
    """n students drawn from the library (the same n and seed, the same class)."""
    rng = random.Random(seed)
    kit = library(assignment)
    found: list[Student] = []
    for number in range(n):
        key = f"s{number:05d}"
        draw = rng.random()
        if found and draw < COPIED + PARTLY:
            original = rng.choice(found)
            definitions = list(original.definitions)
            rng.shuffle(definitions)
            if draw >= COPIED:  # one definition of their own
                spot = rng.randrange(len(definitions))
                name = definitions[spot][0]
                definitions[spot] = (name, rng.choice(kit.styles[name]))
            found.append(Student(key, original.head, tuple(definitions)))
            continue
        definitions = []
        for name in assignment.graded:
            if kit.mistakes[name] and rng.random() < MISTAKE_RATE:
                definitions.append((name, rng.choice(kit.mistakes[name])))
            else:
                definitions.append((name, rng.choice(kit.styles[name])))
        if rng.random() < SHUFFLED:
            rng.shuffle(definitions)
        found.append(Student(key, rng.choice(kit.heads), tuple(definitions)))
    return found


class Results:
    """results.json as grading writes it, for students failing in a given way: one report per way, then copied."""

    def __init__(self, assignment: Assignment):
        self.assignment = assignment
        self.plan = collect(assignment)
        self.summary = hidden_summary(self.plan)
        self.visible = [(case.name, case.title) for case in assignment.module("visible").VISIBLE]
        self.messages = {m.id: m.message for m in catalogue(assignment)}
        self.unknown = {m.id for m in catalogue(assignment)[::UNKNOWN_EVERY]}
        self.documents: dict[tuple, dict] = {}

    def document(self, student: Student, provenance: Provenance) -> dict:
        mistakes = student.mistakes
        way = tuple(sorted(mistakes.items()))
        if way not in self.documents:
            self.documents[way] = results_json(outcome_of(self.report(mistakes)), self.assignment.name)
        document = copy.deepcopy(self.documents[way])
        extra = document["extra_data"]
        extra["submission"] = extra["entry"] = f"{student.key}.py"
        extra.update(provenance.as_extra())
        return document

    def report(self, mistakes: dict[str, str]):
        """The report of a student whose code holds these mistakes (graded name -> mistake id)."""
        failing = {}
        for name, mistake in mistakes.items():
            weighted = [c for c in self.plan if c.name == name and not c.gate and c.weight > 0]
            failing[weighted[0].check] = mistake
        results = []
        for check in self.plan:
            mistake = failing.get(check.check, "")
            named = [mistake] if mistake and mistake not in self.unknown else []
            behaviour = hashlib.sha256(f"{mistake} {check.case}".encode()).hexdigest()[:16] if mistake else ""
            message = f"differs from the reference on {check.case or 'its input'}" if mistake else ""
            results.append(
                CheckResult(
                    check.name,
                    check.check,
                    check.title,
                    check.case,
                    not mistake,
                    message,
                    named,
                    check.weight,
                    check.gate,
                    behaviour=behaviour,
                )  # fmt: skip
            )
        for name, title in self.visible:
            passed = name not in mistakes
            results.append(
                CheckResult(
                    name,
                    f"visible::{title}",
                    title,
                    "",
                    passed,
                    "" if passed else "differs",
                    weight=0.0,
                    kind="visible",
                )  # fmt: skip
            )
        return summarize(
            self.assignment.points,
            results,
            assignment=self.assignment.name,
            submission="",
            entry="",
            isolation={"tier": "synthetic", "limits": {}, "why": "not graded: made by autograder/synthetic.py"},
            mistake_messages={m: self.messages[m] for m in mistakes.values() if m not in self.unknown},
            hidden_summary=self.summary,
            seconds=0.5,
        )


def make_class(n: int, folder: Path, out: Path, seed: int = 0) -> list[Student]:
    """A class of n written as grading leaves it: folder/<key>.py each, out/students/<key>/ (results.json,
    code.json) each; the students."""
    assignment = assignments.get(ASSIGNMENT)
    folder, out = Path(folder), Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    made = students(assignment, n, seed)
    for student in made:
        (folder / f"{student.key}.py").write_text(student.source, encoding="utf-8")
    writer = Results(assignment)
    grading = grading_digest(assignment, GradingConfig())
    by_key = {student.key: student for student in made}
    with tempfile.TemporaryDirectory(prefix="autograder-synthetic-") as scratch:
        intake = read_intake(folder, Path(scratch))
    for submission in intake.submissions:
        student = by_key[submission.key]
        digest = submission_digest(submission.path)
        target = student_folder(out, submission.key)
        target.mkdir(parents=True, exist_ok=True)
        document = writer.document(student, Provenance(digest, grading, student_record(submission)))
        write_atomically(target / "results.json", json.dumps(document, indent=2) + "\n")
        write_record(target, code_record(student, assignment), record_key(digest, assignment))
    return made


def code_record(student: Student, assignment: Assignment) -> CodeRecord:
    """What grading keeps of the student's code, from their pieces (each normalised once, for the whole class)."""
    excerpts = {name: _excerpt(piece.source, name) for name, piece in student.definitions}
    return CodeRecord({k: v for k, v in excerpts.items() if v}, student.normal if fingerprints.available() else None)


@cache
def _excerpt(source: str, name: str) -> str:
    return StudentCode((source,)).excerpt(name)
