"""Running a student's code apart from the grader.

guest/  what runs beside the student's code, in the student's process or the zygote
        that forks it: it imports only autograder.public and itself
  zygote.py     a warm, clean process (PyTorch imported, nothing of any student or of
                the reference in it) that forks one student process at a time
  child.py      a student process: isolate, load the submission, answer probes
  isolation.py  entering a tier: namespaces, a new root, an unprivileged uid, limits
  forbidden.py  PyTorch's own attention taken away before the student's code loads
  seccomp.py    the system calls a student's process may not make
  steps.py      the steps of loading a submission, told to the host as they start
host/   the trusted side: it never runs student code
  tiers.py      choose the strongest isolation this host allows, by trying each
  runtime.py    a zygote and the chosen isolation, for as long as a grader lives
  session.py    one submission: per-name budgets, batched probes, restarts after a crash
  loading.py    what the student process's loading steps came to, told by the step
  client.py     talking to the zygote and to student processes, with deadlines and limits
  cgroups.py    memory, process and CPU limits per student process tree (v1 and v2)
  arrangement.py  where a grader's job cgroups go, and what it does to have them delegated
  kill.py       kill a set of processes until none is left, forks in flight included
  uids.py       unprivileged uids no two graders share
  gpu.py        a GPU's presence and each student's GPU memory, watched through NVML
  own_memory.py the grader's own address space bounded while it grades one submission
  disk.py       what a student's files hold where no size-limited file system bounds them
  bounded_copy.py  a bounded copy of a submission that follows no link
"""
