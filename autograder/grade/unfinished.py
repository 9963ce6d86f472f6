"""Which graded names a student has not started: decided by what their code does, never by its text.

A graded name is not started when its own stub's NotImplementedError is raised when it
runs (the error's message names the exercise: "Exercise 3 (softmax): replace ...",
public/loader.py's ``stub_raised``):

* a check of the name saw that error; or
* a check of it failed without reaching its code, and calling its code raises that error
  (public/probing.py's ``calls_its_code``): a class whose constructor is still empty
  fails every check that loads weights into the attributes it lacks before its forward
  runs, and passes one that only asks it to keep none in a list.

A stub's line left under a finished ``return`` never runs, so it changes nothing. A
called exercise's stub raised while checking its caller is that exercise's, not the
caller's. A class whose constructor is done and whose forward still raises its stub is
not finished: it earns what its checks give it, and, like an untouched stub, no known
mistake is named for it and it is not graded again with the reference standing in for
the names it calls (its own stub would raise all the same). The feedback calls it "not
started" only where it earned nothing (results/model.py's ``Report.unstarted``).

Every route decides so: ``grade`` and ``grade-all`` (the checks' errors from the
sandboxed process, grade/engine.py), the pytest plugin, nbgrader's hidden cells (in the
kernel, grade/carry.py), and the notebook's self-check (public/selfcheck.py) alike.
"""

from __future__ import annotations

from collections.abc import Callable

from ..public.loader import stub_raised
from ..public.probing import CALLS_ITS_CODE, Implementation, run_probe
from ..results.model import CheckResult


def not_started(results: list[CheckResult], error_of: Callable[[str], str | None]) -> frozenset[str]:
    """The graded names of these results (their hidden checks) that are not started.

    error_of(name): the error calling that name's code raises, as a probe reports it
    (``calls_its_code`` run on the student's code), or None; asked only of names that fail
    a check and whose checks never saw their stub raise."""
    hidden = [result for result in results if result.kind == "hidden"]
    found = set()
    for name in dict.fromkeys(result.name for result in hidden):
        failed = [result for result in hidden if result.name == name and not result.passed]
        if any(stub_raised(result.message) == name for result in failed):
            found.add(name)
        elif failed and stub_raised(error_of(name)) == name:
            found.add(name)
    return frozenset(found)


def calling_in(namespace: dict) -> Callable[[str], str | None]:
    """``not_started``'s error_of for code that runs in this process (nbgrader's kernel): its names in ``namespace``."""
    return lambda name: run_probe(CALLS_ITS_CODE, Implementation(namespace), {"name": name})[1]
