"""What an assignment's own files import from the kit: the one face for assignment authors.

solutions/<name>/graders/*.py, mistakes.py and visible.py import from here and nowhere
else of the kit (probes.py ships to students, so it imports only ``autograder.public``,
relatively; reference.py imports nothing of the kit). tests/test_layout.py holds them to it.

    from autograder.grade.authoring import Visible, expect_same, normal, rng
"""

from .inputs import counting, keep_mask, layers, linear_weights, normal, rng
from .judge import Answers, Mismatch, Student, expect_same, require, require_dropouts_built, require_own_attention
from .mistakes import Mistake
from .visible import Visible

__all__ = [
    "Answers",
    "Mismatch",
    "Mistake",
    "Student",
    "Visible",
    "counting",
    "expect_same",
    "keep_mask",
    "layers",
    "linear_weights",
    "normal",
    "require",
    "require_dropouts_built",
    "require_own_attention",
    "rng",
]
