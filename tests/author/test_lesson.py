"""Does each demo cell of a lesson wait for exactly the exercises it needs, and each written answer ask its question?

A demo cell's ``# needs:`` line makes it wait, all or nothing, until those exercises
pass their checks; a later cell that reads a name the waiting cell would have made
must wait too, or it stops Run All with a NameError. A written answer (```{answer} ID)
sits right under its question, with its points in points.toml's [written] table,
reaches the release as nbgrader's manually graded answer, and nothing above its
question in the notebook gives the answer away.
"""

import ast
import json
import re
from pathlib import Path
from types import SimpleNamespace

import nbformat
import pytest

from autograder import assignments
from autograder.author.lesson import LessonCell, _defined, _reads, check_contract, parse_lesson, questions, with_needs
from autograder.author.notebook import ANSWER_STUB
from autograder.errors import KitError


def needs_of(mha, *sources: str) -> list[str]:
    """The "# needs:" line of each demo cell (or "" where it has none), the cells given in order."""
    cells = with_needs(mha, [LessonCell("code", source) for source in sources])
    return [cell.text.split("\n", 1)[0] if cell.text.startswith("# needs:") else "" for cell in cells]


def test_every_name_of_a_waiting_cell_carries_the_whole_cells_needs(mha):
    """Does a name bound without any exercise, in a cell that waits, make its readers wait too?"""
    made = 'sentences = ["a b"]\nids = encode(sentences, build_vocab(sentences))'
    assert needs_of(mha, made, "print(sentences)") == ["# needs: build_vocab, encode", "# needs: build_vocab, encode"]


def test_a_cell_that_binds_a_name_anew_before_reading_it_does_not_wait(mha):
    """Is a name rebound at the top of a cell, then read, still free of what an earlier cell made it with?"""
    assert needs_of(mha, "ids = encode(['a'], {})", "ids = [1, 2]\nprint(ids)")[1] == ""


def test_a_later_cell_takes_the_needs_of_the_cell_that_last_bound_a_name(mha):
    """When a second cell binds a name again, do its readers wait for that cell's exercises only?"""
    first, second = "x = tokenize('a')", "x = encode(['a'], {})"
    assert needs_of(mha, first, second, "print(x)")[2] == "# needs: encode"


@pytest.mark.parametrize(
    "source",
    [
        "def first(ids):\n    return ids[0]",
        "def first(*ids, **stoi):\n    return ids, stoi",
        "first = lambda ids: ids[0]",
        "lengths = [len(ids) for ids in [[1], [2, 3]]]",
        "lengths = {ids: 1 for ids in range(3)}",
        "def first():\n    ids = [1]\n    return ids[0]",
        "def outer():\n    ids = 3\n    def inner():\n        return ids\n    return inner()",
        "class Batch:\n    ids = 3\n    size = ids + 1",
        "class Batch:\n    def __init__(self, ids):\n        self.ids = ids",
        "for ids in range(3):\n    print(ids)",
        "try:\n    pass\nexcept ValueError as ids:\n    print(ids)",
    ],
    ids=[
        "a parameter",
        "*args and **kwargs",
        "a lambda's argument",
        "a comprehension's variable",
        "a dict comprehension's variable",
        "a function's local",
        "an enclosing function's local",
        "a class body's own name",
        "a method's parameter",
        "a loop's own variable",
        "an exception's name",
    ],
)
def test_names_local_to_a_scope_are_not_reads_of_globals(mha, source):
    """Does a name that only shadows the global ``ids`` leave the cell free of what made ``ids``?"""
    assert needs_of(mha, "ids = encode(['a'], {})", source)[1] == ""


@pytest.mark.parametrize(
    "source",
    [
        "def first():\n    return ids[0]",
        "first = lambda: ids[0]",
        "lengths = [len(row) for row in ids]",
        "class Batch:\n    def size(self):\n        return len(ids)",
        "class Batch:\n    size = len(ids)",
        "def first(rows=ids):\n    return rows[0]",
        "def outer():\n    def inner():\n        return ids\n    return inner()",
    ],
    ids=[
        "a function's body",
        "a lambda's body",
        "a comprehension's iterable",
        "a method's body",
        "a class body",
        "a default argument",
        "a nested function",
    ],
)
def test_a_global_read_from_any_scope_is_a_read(mha, source):
    """Does code that reads the global ``ids`` from inside a function, lambda, comprehension or class wait?"""
    assert needs_of(mha, "ids = encode(['a'], {})", source)[1] == "# needs: encode"


def test_what_a_statement_binds_leaves_out_its_functions_locals():
    """Does a definition bind its own name only, not the names its body assigns?"""
    statement = ast.parse(
        "def train(model):\n    global steps\n    scores, loss = model(), 0\n    steps = 1\n    return [s for s in scores]"
    ).body[0]
    assert _defined(statement) == {"train", "steps"}
    assert _reads(statement) == set()


# ------------------------------------------------------------------ written answers


def lesson_of(text: str) -> list[LessonCell]:
    return parse_lesson(text, Path("lesson.md"))


def test_an_answer_fence_holds_its_id_and_what_a_grader_looks_for():
    """Does ```{answer} ID make an answer cell, the Markdown above it its question?"""
    cells = lesson_of("**Why?**\n\n```{answer} why\nBecause the variance is d_k.\n```\n")
    assert cells == [LessonCell("markdown", "**Why?**"), LessonCell("answer", "Because the variance is d_k.", "why")]


@pytest.mark.parametrize("fence", ["```{answer}\nA guide.\n```", "```{answer} why\n```"], ids=["no id", "no guide"])
def test_an_answer_fence_needs_an_id_and_a_guide(fence):
    """Is an answer without its id, or without what a grader looks for, refused with the fix?"""
    with pytest.raises(KitError, match=r"```\{answer\} needs its id"):
        lesson_of("**Why?**\n\n" + fence + "\n")


def contract_of(written: dict[str, float], text: str):
    """check_contract on a one-exercise lesson with ``text`` after its check, for points.toml's [written] table."""
    lesson = lesson_of("```{setup}\n```\n\n```{exercise} f\n```\n\n```{check} f\ncheck(f)\n```\n\n" + text)
    check_contract(SimpleNamespace(lesson_path=Path("lesson.md"), graded=("f",), written=written), lesson)


def test_the_lessons_answers_are_exactly_those_of_points_toml():
    """Is an answer missing from [written], or one [written] has that the lesson lacks, refused?"""
    contract_of({"why": 2}, "**Why?**\n\n```{answer} why\nA guide.\n```\n")
    with pytest.raises(KitError, match="points.toml's \\[written\\] has \\['why', 'how'\\]"):
        contract_of({"why": 2, "how": 1}, "**Why?**\n\n```{answer} why\nA guide.\n```\n")
    with pytest.raises(KitError, match="has \\['why'\\], points.toml's \\[written\\] has \\[\\]"):
        contract_of({}, "**Why?**\n\n```{answer} why\nA guide.\n```\n")


def test_an_answer_comes_right_after_its_question():
    """Is an answer cell that follows a code cell, and so has no question above it, refused?"""
    with pytest.raises(KitError, match="right after its question"):
        contract_of({"why": 2}, "```python\nprint(1)\n```\n\n```{answer} why\nA guide.\n```\n")


def test_each_question_is_the_markdown_just_above_its_answer(assignment):
    """Does every written answer come with its bold question, its guide and points.toml's points, in lesson order?"""
    asked = questions(assignment)
    assert sorted(q.id for q in asked) == sorted(assignment.written) and len(asked) >= 3
    for question in asked:
        assert question.prompt.startswith("**") and "?" in question.prompt, question.id
        assert question.guide and "YOUR ANSWER HERE" not in question.guide
        assert question.points == assignment.written[question.id]


def test_each_release_asks_for_written_answers_graded_by_hand(assignment):
    """Does the committed release hold each written answer as nbgrader's manually graded answer, with its points?"""
    notebook = json.loads((assignment.release_dir / assignment.notebook_name).read_text())
    answers = {
        cell["id"]: cell
        for cell in notebook["cells"]
        if cell["cell_type"] == "markdown" and cell["metadata"].get("nbgrader", {}).get("solution")
    }
    assert sorted(answers) == sorted(assignment.written) and len(answers) >= 3
    for answer_id, cell in answers.items():
        meta = cell["metadata"]["nbgrader"]
        assert (meta["grade"], meta["task"], meta["grade_id"]) == (True, False, answer_id)
        assert meta["points"] == assignment.written[answer_id]
        assert "".join(cell["source"]) == ANSWER_STUB


def test_demo_cells_say_what_they_need(mha):
    """Does each demo cell that uses an exercise, directly or through an earlier demo's name, list it?"""
    notebook = nbformat.read(mha.release_dir / mha.notebook_name, as_version=4)
    sources = [cell.source for cell in notebook.cells if cell.cell_type == "code" and "nbgrader" not in cell.metadata]
    vocab = next(s for s in sources if "stoi = build_vocab(sentences)" in s)
    assert vocab.startswith("# needs: build_vocab, encode\n")
    plain = [s for s in sources if "torch.randn(8, 64)" in s]
    assert plain and not plain[0].startswith("# needs:")  # uses no exercise: runs at once


@pytest.mark.parametrize("kind", ["exercise", "check"])
def test_a_fence_without_its_graded_name_is_refused(mha, kind):
    """Is an exercise or check fence that names no graded name refused with a message saying so (not a TypeError)?"""
    fence = f"```{{{kind}}} {mha.graded[0]}"
    text = mha.lesson_path.read_text()
    assert fence in text
    with pytest.raises(KitError, match="needs the graded name"):
        check_contract(mha, parse_lesson(text.replace(fence, f"```{{{kind}}}", 1), mha.lesson_path))


# What states each written answer, phrase by phrase: its own conclusions, as the lesson or the guide words them. The
# facts a question asks students to put together (taught earlier on purpose: layer norm works on one token, a
# position is the one before it turned by a fixed angle) are no answer; the conclusion drawn from them is.
ANSWER_PHRASES = {
    ("attention_numpy", "causal_rows"): ["1/(t+1)", "1/3", "[1, 0, 0, 0, 0]"],
    ("attention_numpy", "why_scale"): [
        "variance $d_k$",
        "variances of independent terms add up",
        "gradients are almost zero",
        "barely changes when its scores change",
    ],
    ("attention_numpy", "why_positions"): [
        "meets the same vectors",
        "order of the rows",
        "the position part of the query",
    ],
    ("mha", "why_scale"): ["its variance is $d_k$", "variance back to 1", "gradient is nearly zero", "training stalls"],
    ("mha", "straight_reshape"): [
        "not tokens at all",
        "tokens are mixed into heads",
        "features 0-3 of token 1",
        "pieces of token",
    ],
    ("mha", "why_padding"): ["each token on its own", "same three scores", "padding goes on the right"],
    ("mha", "previous_token"): [
        "one learned matrix can relate a token to the token",
        "one pair of maps",
        "avoid its own token",
        "about half at position 2",
        "a third at position 3",
        "the causal mask leaks position",
    ],
    ("encoder_block", "why_padding"): [
        "only attention mixes tokens",
        "cannot reach a real token",
        "statistics run across tokens",
        "would let it through",
    ],
    ("encoder_block", "why_residual"): [
        "1 + f'(x)",
        "straight along the sum",
        "only through every sublayer above it",
        "must survive three attentions",
    ],
    ("encoder_block", "prenorm_stable"): [
        "running estimate of its own size",
        "no norm shrinks",
        "moves the output much less",
        "liu et al",
    ],
}


def plain(text: str) -> str:
    """Text as a phrase is looked for in it: lower case, every run of white space one space."""
    return re.sub(r"\s+", " ", text).lower()


def test_every_written_answer_has_its_phrases():
    """Does the list of what states each answer cover every written answer of every assignment, and no other?"""
    assert sorted(ANSWER_PHRASES) == sorted(
        (a, answer) for a in assignments.names() for answer in assignments.get(a).written
    )


@pytest.mark.parametrize("name, answer", sorted(ANSWER_PHRASES), ids=[f"{a}-{q}" for a, q in sorted(ANSWER_PHRASES)])
def test_no_cell_above_a_question_gives_its_answer_away(name, answer):
    """In the release, does each written answer's question come before every cell that states the answer (one of its
    phrases), and does each phrase state it (in the guide, or in the notebook after the question)?"""
    assignment = assignments.get(name)
    cells = nbformat.read(assignment.release_dir / assignment.notebook_name, as_version=4).cells
    asked = [i for i, cell in enumerate(cells) if cell.get("id") == answer][0] - 1  # the question: the cell above
    guide = next(q.guide for q in questions(assignment) if q.id == answer)
    # The self-check cell holds the bundle encoded (base64, where any short phrase of digits and "/" turns up by
    # chance, as "1/3" did): no text a student reads. Its place is kept, so that a message names the right cell.
    before = ["" if cell.get("id") == "selfcheck" else plain(cell.source) for cell in cells[:asked]]
    after = plain(guide + "\n" + "\n".join(cell.source for cell in cells[asked:]))
    for phrase in ANSWER_PHRASES[name, answer]:
        early = [i for i, text in enumerate(before) if phrase in text]
        assert not early, f"{phrase!r} stands in cell {early[0]} ({cells[early[0]].get('id')}), above the question"
        assert phrase in after, f"{phrase!r} is nowhere in the answer or after its question"


EXERCISES = [(name, graded) for name in assignments.names() for graded in assignments.get(name).graded]


def names_left_undefined(notebook, assignment, blank: str) -> list[tuple[str, set[str]]]:
    """With ``blank`` a stub and every other exercise solved: the demo cells of the release that would run (no
    exercise on their needs line is ``blank`` or calls it) yet read a name only a waiting cell binds, each with
    those names. A waiting cell binds nothing; every other cell binds what it binds (the rule of
    tests/author/test_notebooks.py's Run All with one exercise left blank, read from the release's text)."""
    from autograder.grade.mistakes import callers
    from autograder.public.notebook import NEEDS

    blocked = {blank} | set(callers(assignment)[blank])  # an exercise that calls a stub fails its checks too
    missing: set[str] = set()
    found = []
    for cell in notebook.cells:
        if cell.cell_type != "code" or cell.get("id") == "selfcheck":
            continue
        first = cell.source.split("\n", 1)[0].strip()
        needs = {n.strip() for n in NEEDS.match(first).group(1).split(",")} if NEEDS.match(first) else set()
        tree = ast.parse("\n".join(line for line in cell.source.split("\n") if not line.lstrip().startswith("%")))
        if needs & blocked:
            missing |= {name for statement in tree.body for name in _defined(statement)}
            continue
        read: set[str] = set()
        for statement in tree.body:
            read |= _reads(statement) & missing
            missing -= _defined(statement)
        if read:
            found.append((cell.get("id"), read))
    return found


@pytest.mark.parametrize("name, exercise", EXERCISES, ids=[f"{n}-{e}" for n, e in EXERCISES])
def test_with_one_exercise_blank_no_running_demo_reads_a_waiting_ones_name(name, exercise):
    """The fast form of Run All with one exercise left blank (tests/author/test_notebooks.py runs one such
    notebook per assignment; CI's `make exhaustive` runs them all): does no demo that runs read a name only a
    waiting demo would have made (a NameError that would stop Run All)?"""
    assignment = assignments.get(name)
    notebook = nbformat.read(assignment.release_dir / assignment.notebook_name, as_version=4)
    assert names_left_undefined(notebook, assignment, exercise) == []


def test_a_demo_without_its_needs_line_is_found(mha):
    """Does that check fail where a demo that uses build_vocab's vocabulary no longer waits for it?"""
    notebook = nbformat.read(mha.release_dir / mha.notebook_name, as_version=4)
    vocab = next(c for c in notebook.cells if c.cell_type == "code" and "stoi = build_vocab(sentences)" in c.source)
    assert names_left_undefined(notebook, mha, "build_vocab") == []
    later = next(
        c for c in notebook.cells[notebook.cells.index(vocab) + 1 :] if c.cell_type == "code" and "stoi" in c.source
    )
    later.source = "\n".join(line for line in later.source.split("\n") if not line.startswith("# needs:"))
    assert [cell for cell, _ in names_left_undefined(notebook, mha, "build_vocab")] == [later.get("id")]
