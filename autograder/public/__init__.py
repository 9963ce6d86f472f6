"""What ships to students: the self-check engine, unchanged, inside every release notebook.

These modules import nothing from the rest of the kit (only each other, relatively),
hold no reference code and no hidden input, and run both beside a student's code (in
the sandbox, and in the student's own notebook) and in the trusted grader: the checks a
student runs and the hidden graders use the same probes, comparisons and messages.

wire.py          plain arrays across a process boundary, bounded, nothing that runs code
probing.py       probes: call one graded name on plain inputs, return plain arrays
torch_probes.py  shared helpers for the probes of PyTorch assignments
compare.py       what differs between two sets of outputs, in words
loader.py        find a submission (parse only) and load it (run it)
selfcheck.py     the visible checks: judge outputs against stored expectations
carry.py         error carried forward: stand-ins that answer as the reference does, asked of the trusted side
notebook.py      check() and needs() in the student's notebook
"""
