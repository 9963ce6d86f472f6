"""A late policy, stated once for the course's term and applied by grade-all from the time each export carries.

policy.py    the file (--late-policy FILE): due dates on a named time zone's clock, a grace period,
             a penalty per hour or day with a cap, per-student extensions; bad input refused with
             its line and the fix
rules.py     what a policy makes of one submission: its time (or the LMS's flag) judged against
             the student's due date, the percent deducted, and the sentence the student reads
apply.py     grade-all's step: every student's judgement into their results.json and feedback,
             on every run, without grading anyone again
nbgrader_plugin.py  the same rules as nbgrader's late-submission plugin, for `nbgrader autograde`

docs/late-policy.md says what each rule means and why, with an example file.
"""
