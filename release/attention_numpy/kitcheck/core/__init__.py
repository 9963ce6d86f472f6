"""The part of the grading engine that may run beside a student's code.

These modules import nothing from the rest of the kit (only each other, relatively),
hold no reference code and no hidden inputs, and are copied unchanged into the
student's self-check bundle: the checks a student runs and the graders use the
same probes, comparisons and messages.
"""
