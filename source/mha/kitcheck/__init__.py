"""Self-checks for this assignment, shipped beside the notebook.

In the notebook:   check(split_heads)
In a terminal:     python -m kitcheck mha.ipynb

Each check runs your code on a few small inputs and compares the results with the
instructor's; a failure says what differs and where to look. Hidden checks, run when
your work is graded, test more shapes, masks and gradients.
"""
from importlib import import_module
from pathlib import Path

from .core.selfcheck import Bundle, CheckFailed, check_object

HERE = Path(__file__).parent
ASSIGNMENT = next(p.parent.name for p in sorted(HERE.glob("*/visible.json")))
_bundle = None


def bundle() -> Bundle:
    global _bundle
    if _bundle is None:
        import_module(f".{ASSIGNMENT}.probes", __name__)  # registers the probes
        _bundle = Bundle(HERE / ASSIGNMENT)
    return _bundle


def check(exercise, device: str = "cpu") -> None:
    """Run the visible checks of one exercise (the function or class itself, e.g. check(tokenize)).

    Prints what passed and what did not; raises CheckFailed when a check fails.
    """
    check_object(bundle(), exercise, device)


__all__ = ["check", "CheckFailed"]
