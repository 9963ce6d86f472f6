"""The course's late policy as nbgrader's late-submission plugin: ``nbgrader autograde`` computes the kit's penalty.

In nbgrader_config.py (docs/late-policy.md):

    c.AssignLatePenalties.plugin_class = "autograder.deliver.late.nbgrader_plugin.LatePolicyPlugin"
    c.LatePolicyPlugin.policy_file = "late.toml"

nbgrader's AssignLatePenalties (nbgrader/preprocessors/latesubmissions.py) asks its plugin
for a penalty only where the submission's timestamp is after the assignment's due date
(with the student's extension): ``late_submission_penalty(student_id, score,
total_seconds_late)``, and keeps the answer between 0 and the notebook's score. This plugin
reads the submission's own timestamp and the notebook's points from the gradebook that
AssignLatePenalties holds open while it asks, and answers what grade-all's rules give
(rules.py) for the policy's assignment of that name, matching extensions by the nbgrader
student id (grade-all's key, as ``collect`` and ``gradebook`` store it) or the student's
``lms_user_id``. For nbgrader to ask at all, its due date must not be later than the
policy's: ``python -m autograder gradebook`` sets it, and each submission's time and
extension, from grade-all's record.
"""

from __future__ import annotations

from datetime import timezone
from fractions import Fraction
from pathlib import Path

from nbgrader.plugins import BasePlugin
from traitlets import Unicode

from ...results.scoring import exact
from .policy import read_policy
from .rules import deduction, judge_time


class LatePolicyPlugin(BasePlugin):
    """nbgrader's late penalty by the kit's late policy file."""

    policy_file = Unicode("late.toml", help="the course's late policy (TOML), as grade-all's --late-policy").tag(
        config=True
    )

    def late_submission_penalty(self, student_id: str, score: float, total_seconds_late: float) -> float | None:
        """The points grade-all's late policy takes off this submission (nbgrader keeps it within the score)."""
        step = self.parent  # nbgrader's AssignLatePenalties: its gradebook is open, and it names the notebook
        policy = read_policy(Path(self.policy_file), step.assignment_id)
        submission = step.gradebook.find_submission(step.assignment_id, student_id)
        notebook = step.gradebook.find_submission_notebook(step.notebook_id, step.assignment_id, student_id)
        if submission.timestamp is None:
            return None
        who = (student_id, submission.student.lms_user_id or "")
        judged = judge_time(policy, who, submission.timestamp.replace(tzinfo=timezone.utc))
        possible = exact(notebook.max_score or 0.0)
        return float(deduction(judged.percent, judged.of, exact(max(score, 0.0)), possible or Fraction(0)))
