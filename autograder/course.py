"""The course's assignments as a package: ``autograder.course.<name>`` is ``solutions/<name>/``.

Each assignment's probes, graders, mistakes and visible checks are imported under this
name, so that their relative imports resolve: a probe file reaches the public engine
as ``...public`` both here and in the students' self-check bundle, and a grader
reaches its probes as ``..probes``.
"""

from . import KIT_ROOT

__path__ = [str(KIT_ROOT / "solutions")]
