"""python -m kitcheck NOTEBOOK_OR_FILE: run every visible check on your work."""
import argparse
import os
import sys
from pathlib import Path

from . import ASSIGNMENT, bundle
from .core.loader import SubmissionError, find_entry, load
from .core.probing import Implementation
from .core.selfcheck import report


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kitcheck", description=f"Run the visible checks of {ASSIGNMENT} on your work.")
    parser.add_argument("work", nargs="?", default=f"{ASSIGNMENT}.ipynb", help=f"your notebook, .py file or folder (default {ASSIGNMENT}.ipynb)")
    args = parser.parse_args(argv)
    os.environ.setdefault("MPLBACKEND", "Agg")
    checks = bundle()
    names = list(dict.fromkeys(check["name"] for check in checks.data["checks"]))
    try:
        entry = find_entry(Path(args.work), tuple(names))
    except SubmissionError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(f"Checking {entry.path} (in this process: these are self-checks, not the sandboxed grading)")
    loaded = load(entry)
    for note in loaded.notes:
        print(f"note: {note}")
    impl = Implementation(loaded.namespace)
    failed = 0
    for name in names:
        outcomes = checks.run(impl, name)
        failed += not all(o.passed for o in outcomes)
        print()
        print(report(name, outcomes, checks.hidden_summary(name)))
    print()
    print(f"{len(names) - failed} of {len(names)} exercises pass their visible checks")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
