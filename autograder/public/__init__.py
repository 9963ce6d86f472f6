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
plain_trees.py   the plain data a stand-in sends (arguments, a module's state, results), bounded
replay.py        the notebook's stand-ins: answers recorded at build time, given where the call matches
trees.py         walking and removing a submitted folder without recursion, however deep
notebook.py      check() and needs() in the student's notebook
"""
