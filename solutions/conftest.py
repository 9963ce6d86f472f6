"""Plain pytest runs the hidden graders of solutions/<assignment>/graders/ through the kit's plugin.

pytest solutions/mha/graders --grade-submission PATH [--grade-results DIR]
"""

from autograder.grade.pytest_plugin import *  # noqa: F401,F403  (the plugin's hooks and fixtures)
