"""The student the feedback tests are about: a cell with a syntax error, a known mistake, an exercise not
started, and full marks on the others; as results.json (made by the kit's own scoring and writer) and as a
notebook to grade for real."""

from pathlib import Path

import nbformat

from autograder.author.samples import sample_notebook
from autograder.results.model import CheckResult, Report
from autograder.results.scoring import summarize
from autograder.results.write import gradescope_json

POINTS = {
    "tokenize": 2,
    "build_vocab": 2,
    "encode": 3,
    "Embeddings": 2,
    "PositionalEncoding": 4,
    "split_heads": 3,
    "combine_heads": 3,
    "scaled_dot_product_attention": 6,
    "make_padding_mask": 2,
    "make_causal_mask": 2,
    "MultiHeadAttention": 8,
    "display_attention": 3,
}
EXPLANATIONS = {
    "positional_cosine_exponent_off_by_one": "The cosine of feature 2i+1 uses the exponent (2i+1)/d_model: "
    "both features of a pair share the exponent 2i/d_model.",
}
SYNTAX_ERROR = (
    "the cell that defines split_heads (code cell 25) raised SyntaxError: '(' was never closed "
    "(code cell 25, line 14); loading went on after it"
)
HIDDEN_PE = "table at index (0, 1, 1): got 0.950415, expected 0.540302"
STUB = "your code raised NotImplementedError: Exercise 3 (encode): replace the `raise NotImplementedError` line"


def case(name, title, passed, message="", mistakes=(), kind="hidden", weight=1.0, gate=False, case_id=""):
    return CheckResult(
        name, f"{kind}::{name}::{title}", title, case_id, passed, message, list(mistakes), weight, gate, kind=kind
    )


def cases(name, title, passed, total, message="", mistakes=(), kind="hidden", weight=1.0):
    """A check over several cases, the first ``total - passed`` of them failing."""
    return [
        case(
            name,
            title,
            i >= total - passed,
            "" if i >= total - passed else message,
            mistakes,
            kind,
            weight,
            case_id=f"c{i}",
        )
        for i in range(total)
    ]


def student_report(odd: str | None = None) -> Report:
    """The report of the student above. ``odd``: a text the submission controls, put wherever a submission's
    text can reach (a loading note quoting its code, check messages, its file name, a failing check's
    title); every other text is the kit's."""
    said = (lambda usual: usual) if odd is None else (lambda usual: odd)
    results = []
    for name in POINTS:
        if name == "encode":
            results += cases(name, "pads on the right like the reference", 0, 7, STUB)
            results += [case(name, "encodes the three sentences", False, STUB, kind="visible")]
        elif name == "split_heads":
            missing = "your submission does not define split_heads"
            results += cases(name, "gives (batch, n_heads, seq, d_key)", 0, 6, missing)
            results += [case(name, said("splits (2, 4, 6) into 3 heads"), False, missing, kind="visible")]
        elif name == "PositionalEncoding":
            mistake = ["positional_cosine_exponent_off_by_one"]
            results += cases(name, "stores pe[0, pos, 2i] = sin(...)", 0, 5, said(HIDDEN_PE), mistake, weight=2)
            results += cases(name, "returns x + pe[:, :seq] in eval mode", 1, 5, "values differ", mistake)
            results += cases(name, "keeps pe as a buffer", 1, 1)
            results += [
                case(
                    name,
                    "builds the table for d_model 4",
                    False,
                    said("got 0.995004, expected 0.540302"),
                    kind="visible",
                )
            ]
            results += [case(name, "keeps the table as a buffer", True, kind="visible")]
        else:
            results += cases(name, f"matches the reference on {name}'s hidden cases", 6, 6)
            results += [case(name, f"matches the notebook's example for {name}", True, kind="visible")]
            if name == "scaled_dot_product_attention":
                results += [case(name, "computes attention itself", True, weight=0.0, gate=True)]
    return summarize(
        POINTS,
        results,
        assignment="mha",
        submission=said("mha.ipynb"),
        notes=[said(SYNTAX_ERROR)],
        isolation={"tier": "hardened", "limits": "", "why": ""},
        mistake_messages=EXPLANATIONS,
        hidden_summary={
            name: {
                "cases": 6,
                "titles": [f"matches the reference on {name}'s hidden cases", f"handles {name}'s edge cases"],
            }
            for name in POINTS
        },
        not_started=frozenset({"encode"}),
    )


def student_results() -> dict:
    """results.json of the student above, as the kit writes it."""
    return gradescope_json(student_report())


def brief_student(mha, path: Path) -> Path:
    """The release filled with the reference, but: the cosine exponent slip in PositionalEncoding, encode's
    stub untouched, and a parenthesis never closed in split_heads."""
    notebook = sample_notebook(mha, "positional_cosine_exponent_off_by_one")
    blank = {c.get("id"): c.source for c in nbformat.read(mha.release_dir / mha.notebook_name, as_version=4).cells}
    for cell in notebook.cells:
        if cell.get("id") == "encode":
            cell.source = blank["encode"]
        elif cell.get("id") == "split_heads":
            cell.source = cell.source.replace("return", "return (", 1)
    nbformat.write(notebook, path)
    return path
