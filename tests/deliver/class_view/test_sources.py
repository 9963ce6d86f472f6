"""Is a student's own code read rightly for the class views: what they wrote, less what the release gave them,
each definition as Python would take it, bounded, and nothing when there is nothing safe to read?"""

import signal

import nbformat

from autograder import KIT_ROOT, assignments
from autograder.deliver.class_view import sources
from autograder.deliver.class_view.fingerprints import normalised
from autograder.deliver.class_view.sources import (
    EXCERPT_CHARS,
    EXCERPT_LINES,
    MAX_CODE_CHARS,
    RECORD,
    StudentCode,
    class_records,
    code_record,
    keep_record,
    read_record,
    record_key,
    release_code,
    student_code,
    without_docstrings,
)

NUMPY = assignments.get("attention_numpy")
SOFTMAX = '''def softmax(x, axis=-1):
    """The stub's spec: what it returns."""
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)'''


def test_the_students_text_leaves_out_the_releases_pieces_and_is_bounded():
    """Is the text every piece but those the release gave, in order, cut at MAX_CODE_CHARS?"""
    code = StudentCode(("import numpy as np", "mine = 1", "print('demo')", "mine = 2"), given=frozenset({0, 2}))
    assert code.text == "mine = 1\n\nmine = 2"
    assert len(StudentCode(("x" * (MAX_CODE_CHARS + 10),)).text) == MAX_CODE_CHARS


def test_a_definition_is_the_last_one_python_runs():
    """Is the definition of a name the last top-level one (decorators included), a piece that does not parse
    skipped, a nested one or a mere mention not taken, and "" where there is none?"""
    code = StudentCode(
        (
            "def softmax(x):\n    return 1",
            "@cache\n@other\ndef softmax(x):\n    return 2",
            "def softmax(x:\n    return 3",  # a syntax error: Python never ran it
            "class Outer:\n    def tokenize(self):\n        return 4\nsoftmax(1)",
        )
    )
    assert code.definition("softmax") == "@cache\n@other\ndef softmax(x):\n    return 2"
    assert code.definition("tokenize") == ""
    assert code.definition("Outer").startswith("class Outer:") and code.definition("Outer").endswith("return 4")
    assert StudentCode(()).definition("softmax") == ""
    stub, mine = "def softmax(x):\n    raise NotImplementedError", "def softmax(x):\n    return 5"
    assert StudentCode((mine, stub), given=frozenset({1})).definition("softmax") == stub  # the release's cell runs last
    assert StudentCode((stub, mine), given=frozenset({0})).definition("softmax") == mine


def test_an_excerpt_quotes_the_code_without_its_docstrings_and_bounded():
    """Does a cluster's quote leave out the docstring (the stub's spec), and cut a long definition with "…"?"""
    assert StudentCode((SOFTMAX,)).excerpt("softmax") == (
        "def softmax(x, axis=-1):\n"
        "    e = np.exp(x - x.max(axis=axis, keepdims=True))\n"
        "    return e / e.sum(axis=axis, keepdims=True)"
    )
    long = "def long():\n" + "".join(f"    x{n} = {n}\n" for n in range(EXCERPT_LINES + 5))
    lines = StudentCode((long,)).excerpt("long").split("\n")
    assert (
        len(lines) == EXCERPT_LINES + 1
        and lines[-1] == "…"
        and lines[-2] == f"    x{EXCERPT_LINES - 2} = {EXCERPT_LINES - 2}"
    )
    wide = "def wide():\n    return '" + "y" * (EXCERPT_CHARS * 2) + "'"
    excerpt = StudentCode((wide,)).excerpt("wide")
    assert excerpt.endswith("\n…") and len(excerpt) == EXCERPT_CHARS + 2
    assert StudentCode(()).excerpt("missing") == ""


def test_only_the_docstrings_of_functions_and_classes_go():
    """Are the docstrings of functions, methods and classes left out, a module's and other strings kept, and code
    that does not parse kept as it is?"""
    code = '"""The module."""\n\nclass A:\n    """A class."""\n\n    def f(self):\n        """A method,\n        on two lines."""\n        return "kept"\n'
    assert without_docstrings(code) == '"""The module."""\n\nclass A:\n\n    def f(self):\n        return "kept"\n'
    assert without_docstrings("def f(:\n    '''x'''") == "def f(:\n    '''x'''"


# ------------------------------------------------------------------ a submission's code


def test_a_notebooks_cells_left_as_released_are_not_the_students(tmp_path):
    """Are the release notebook's cells, as given, marked the release's, and a cell the student wrote or changed not?"""
    release = nbformat.read(NUMPY.release_dir / NUMPY.notebook_name, as_version=4)
    code_cells = [c for c in release.cells if c.cell_type == "code"]
    code_cells[0].source += "\n# changed by the student"
    release.cells.append(nbformat.v4.new_code_cell("def softmax(x, axis=-1):\n    return x  # mine"))
    path = tmp_path / "ada.ipynb"
    nbformat.write(release, path)
    code = student_code(path, NUMPY)
    assert len(code.pieces) == len(code_cells) + 1
    assert set(range(1, len(code_cells))) <= code.given and 0 not in code.given and len(code_cells) not in code.given
    assert "# changed by the student" in code.text and code.text.endswith("return x  # mine")
    assert code.definition("softmax").endswith("return x  # mine")


def test_a_module_and_a_package_are_read_as_they_are(tmp_path):
    """Is a .py file one piece, and a package its .py files in order, bytecode caches and links left out?"""
    module = tmp_path / "ada.py"
    module.write_text("def softmax(x, axis=-1):\n    return x\n")
    assert student_code(module, NUMPY) == StudentCode((module.read_text(),))
    package = tmp_path / "ben"
    (package / "__pycache__").mkdir(parents=True)
    (package / "__init__.py").write_text("from .b import softmax\n")
    (package / "b.py").write_text("def softmax(x, axis=-1):\n    return x\n")
    (package / "__pycache__" / "c.py").write_text("CACHED = 1\n")
    (tmp_path / "outside.py").write_text("SECRET = 1\n")
    (package / "d.py").symlink_to(tmp_path / "outside.py")
    assert student_code(package, NUMPY).pieces == (
        "from .b import softmax\n",
        "def softmax(x, axis=-1):\n    return x\n",
    )


def test_nothing_safe_to_read_gives_no_code(tmp_path):
    """Does a link, a missing path or a folder with nothing gradable give empty code rather than an error?"""
    (tmp_path / "ada.py").write_text("def softmax(x, axis=-1):\n    return x\n")
    (tmp_path / "link.py").symlink_to(tmp_path / "ada.py")
    (tmp_path / "empty").mkdir()
    for path in (tmp_path / "link.py", tmp_path / "missing.py", tmp_path / "empty"):
        assert student_code(path, NUMPY) == StudentCode(()), path


def test_the_code_given_is_the_release_notebooks_cells_and_the_stub():
    """Is what students are given the release notebook's code cells, then the stub module?"""
    given = release_code(NUMPY)
    release = nbformat.read(NUMPY.release_dir / NUMPY.notebook_name, as_version=4)
    assert list(given[:-1]) == [c.source for c in release.cells if c.cell_type == "code"]
    assert given[-1] == NUMPY.stub_path.read_text(encoding="utf-8")


COHORT = KIT_ROOT / "tests" / "data" / "cohort" / "attention_numpy"


def test_a_record_holds_what_the_class_views_read(tmp_path):
    """Does a student's record hold the excerpt of each graded name their code defines and their own code
    normalised, and is it read back only for the same submission, release and normaliser?"""
    path = COHORT / "ada.py"
    record = keep_record(tmp_path, "ada", path, "digest-1", NUMPY)
    code = student_code(path, NUMPY)
    assert record.excerpts == {name: code.excerpt(name) for name in NUMPY.graded if code.excerpt(name)}
    assert record.excerpt("positional_encoding").startswith("def positional_encoding(")
    assert record.excerpt("not_a_name") == ""
    assert record.normalised == normalised(code.text)
    folder = tmp_path / "students" / "ada"
    assert read_record(folder, record_key("digest-1", NUMPY)) == record
    assert read_record(folder, record_key("digest-2", NUMPY)) is None  # another submission
    assert record_key("digest-1", NUMPY) != record_key("digest-1", assignments.get("mha"))  # another release
    (folder / RECORD).write_text('{"key": "' + record_key("digest-1", NUMPY) + '", "excerpts": []}')
    assert read_record(folder, record_key("digest-1", NUMPY)) is None  # damaged: made again


def test_the_class_records_are_made_once(tmp_path, monkeypatch):
    """Are the records kept for the same submissions read back, and only the others made (and kept)?"""
    made = []
    real = sources.code_record

    def counted(path, assignment):
        made.append(path.stem)
        return real(path, assignment)

    monkeypatch.setattr(sources, "code_record", counted)
    students = [(path.stem, path, f"digest of {path.stem}") for path in sorted(COHORT.glob("*.py"))]
    first = class_records(tmp_path, students, NUMPY)
    assert made == [key for key, _, _ in students] and list(first) == made
    made.clear()
    changed = [(key, path, digest + " changed" if key == "cleo" else digest) for key, path, digest in students]
    again = class_records(tmp_path, changed, NUMPY, jobs=2)
    assert made == ["cleo"] and again == first
    assert code_record(COHORT / "cleo.py", NUMPY) == again["cleo"]


def _sigterm_is_default(_task):
    return signal.getsignal(signal.SIGTERM) == signal.SIG_DFL


def test_the_pools_workers_end_on_sigterm(monkeypatch, tmp_path):
    """Does each worker of the pool that reads a large class's code run with SIGTERM's default action, not the
    command's KeyboardInterrupt it inherits through fork (which left workers stuck when the pool closed)?"""
    from autograder.interrupts import interrupt_on_terminate

    before = signal.getsignal(signal.SIGTERM)
    monkeypatch.setattr(sources, "_keep", _sigterm_is_default)  # what a forked worker runs
    students = [(f"s{k}", tmp_path / f"s{k}.py", f"digest{k}") for k in range(sources.POOL_FROM)]
    try:
        interrupt_on_terminate()
        found = sources.class_records(tmp_path / "out", students, assignments.get("attention_numpy"), jobs=2)
    finally:
        signal.signal(signal.SIGTERM, before)
    assert list(found.values()) == [True] * sources.POOL_FROM
