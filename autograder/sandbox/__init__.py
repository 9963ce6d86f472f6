"""Running a student's code apart from the grader.

guest/  what runs beside the student's code, in the student's process or the zygote
        that forks it: it imports only autograder.public and itself
  zygote.py     a warm, clean process (PyTorch imported, nothing of any student or of
                the reference in it) that forks one student process at a time
  child.py      a student process: isolate, load the submission, answer probes
  isolation.py  entering a tier: namespaces, a new root, an unprivileged uid, limits
  forbidden.py  PyTorch's own attention taken away before the student's code loads
host/   the trusted side: it never runs student code
  tiers.py      choose the strongest isolation this host allows, by trying each
  runtime.py    a zygote and the chosen isolation, for as long as a grader lives
  session.py    one submission: per-name budgets, batched probes, restarts after a crash
  client.py     talking to the zygote and to student processes, with deadlines and limits
  cgroups.py    memory, process and CPU limits per student process tree (v1 and v2)
  uids.py       unprivileged uids no two graders share
  bounded_copy.py  a bounded copy of a submission that follows no link
"""
