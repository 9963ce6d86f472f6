"""Running a student's code apart from the grader.

zygote.py   a warm, clean process (PyTorch imported, nothing of any student or of the
            reference in it) that forks one student process per submission
child.py    what a student process does: isolate itself, load the submission, answer probes
client.py   the trusted side: start a zygote, spawn and talk to student processes
session.py  one submission's grading: per-name time budgets, restarts after a crash
isolation.py  the OS sandbox: namespaces, cgroups, an unprivileged uid, limits
"""
