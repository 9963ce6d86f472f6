"""The kit's one command: ``python -m autograder SUBCOMMAND``."""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from . import KIT_ROOT, assignments
from .core.loader import SubmissionError
from .errors import KitError


def _assignment_arg(parser, required=False):
    parser.add_argument(
        "--assignment",
        "-a",
        choices=sorted(assignments.ASSIGNMENTS),
        required=required,
        help="which assignment (inferred from the submission when left out)",
    )


def _grading_args(parser):
    parser.add_argument("--device", default="cpu", choices=["cpu", "cuda", "auto"], help="where the student's code runs (default cpu)")
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds of wall time per graded name (default 10)")
    parser.add_argument("--memory", type=float, default=2.0, help="GiB of memory the student's code may use (default 2)")
    parser.add_argument("--processes", type=int, default=64, help="processes and threads the student's code may run at once (default 64)")
    parser.add_argument(
        "--allow-unsandboxed",
        action="store_true",
        help="where the hardened sandbox cannot run (not root, not Linux), grade in a plain separate process instead of refusing",
    )


def cmd_build(args) -> int:
    from .build import build

    for name in args.assignments or sorted(assignments.ASSIGNMENTS):
        changed = build(assignments.get(name))
        print(f"{name}: " + (", ".join(str(p.relative_to(Path.cwd()) if p.is_relative_to(Path.cwd()) else p) for p in changed) if changed else "up to date"))
    return 0


def _options(args):
    from .engine import Options
    from .sandbox.session import GiB, Limits

    return Options(
        device=args.device,
        limits=Limits(timeout=args.timeout, memory_bytes=int(args.memory * GiB), processes=args.processes),
        allow_unsandboxed=args.allow_unsandboxed,
    )


def cmd_grade(args) -> int:
    from .engine import Grader, infer_assignment
    from .results import markdown_summary, summary_text, write_error_results, write_results

    submission = Path(args.submission)
    try:
        assignment = assignments.get(args.assignment) if args.assignment else infer_assignment(submission)
        with Grader(assignment, _options(args)) as grader:
            report = grader.grade(submission)
    except (KitError, SubmissionError) as error:
        # CI and Gradescope read results.json whatever happens: say there what went wrong.
        write_error_results(Path(args.out), str(error), args.assignment)
        raise
    path = write_results(report, Path(args.out))
    print(summary_text(report))
    if report.sandbox != "hardened":
        print(f"note: graded in a separate process, NOT hardened ({report.sandbox})")
    print(f"wrote {path} and {path.with_name('junit.xml')}")
    if args.markdown:
        with open(args.markdown, "a") as file:
            file.write(markdown_summary(report))
    percent = 100 * report.score / report.max_score if report.max_score else 0.0
    if args.fail_under is not None and percent < args.fail_under:
        print(f"score {percent:.1f}% is under --fail-under {args.fail_under:g}%", file=sys.stderr)
        return 1
    return 0


def cmd_grade_all(args) -> int:
    from .batch import grade_all, students
    from .engine import infer_assignment

    folder = Path(args.submissions)
    if args.assignment:
        assignment = assignments.get(args.assignment)
    else:
        assignment = infer_assignment(students(folder)[0].path)
    status = grade_all(folder, assignment, Path(args.out), _options(args), jobs=args.jobs, progress=not args.quiet)
    errors = {name: text for name, text in status.items() if text.startswith("error")}
    out = Path(args.out)
    print((out / "report.txt").read_text(), end="")
    skipped = sum(text.startswith("skipped") for text in status.values())
    print(f"\n{len(status) - skipped - len(errors)} graded, {skipped} already graded, {len(errors)} errors")
    for name, text in errors.items():
        print(f"  {name}: {text}")
    print(f"wrote {out / 'summary.csv'}, {out / 'report.png'}, {out / 'report.txt'} and {out}/<student>/results.json")
    return 1 if errors else 0


def cmd_bench(args) -> int:
    from .bench import bench, print_figures

    print_figures(bench(n=args.n, jobs=args.jobs, keep=Path(args.keep) if args.keep else None))
    return 0


def cmd_gradebook(args) -> int:
    from .gradebook import export

    totals = export(Path(args.results), assignments.get(args.assignment), Path(args.course))
    for student, total in sorted(totals.items()):
        print(f"  {student:<24} {total:g}")
    print(f"stored {len(totals)} students' points in {Path(args.course) / 'gradebook.db'}: `nbgrader export` writes grades.csv")
    return 0


def cmd_gradescope(args) -> int:
    from .gradescope import write_bundle

    path = write_bundle(assignments.get(args.assignment), Path(args.out), timeout=args.timeout)
    print(f"wrote {path}: upload it as the assignment's autograder on Gradescope (setup.sh and run_autograder at its root)")
    return 0


def cmd_demo(args) -> int:
    from .demo import demo

    return demo()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m autograder",
        description="Build, release and grade the multi-head attention assignments.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    build = commands.add_parser("build", help="generate the stubs, the nbgrader source notebook and the release (runs nbgrader)", description="Generate the stubs, the nbgrader source notebook and the release (runs nbgrader).")
    build.add_argument("assignments", nargs="*", help="assignments to build (default: all)")
    build.set_defaults(run=cmd_build)

    grade = commands.add_parser("grade", help="grade one submission into DIR/results.json (Gradescope's format)", description="Grade one submission into DIR/results.json (Gradescope's format).")
    grade.add_argument("submission", help="a notebook, a .py file, a package folder or a repository folder")
    _assignment_arg(grade)
    grade.add_argument("--out", required=True, help="folder for results.json and junit.xml")
    grade.add_argument("--fail-under", type=float, metavar="PERCENT", help="exit with status 1 when the score is under PERCENT of the points (for CI)")
    grade.add_argument("--markdown", metavar="FILE", help="append a table of the points to FILE (e.g. $GITHUB_STEP_SUMMARY)")
    _grading_args(grade)
    grade.set_defaults(run=cmd_grade)

    grade_all = commands.add_parser(
        "grade-all",
        help="grade every submission of a folder (one file or folder per student), in parallel, with a class report",
        description="Grade every submission of a folder into DIR/<student>/results.json, with DIR/summary.csv and a class report; a rerun skips what is done.",
    )
    grade_all.add_argument("submissions", help="a folder with one notebook, .py file or folder per student, named after them")
    _assignment_arg(grade_all)
    grade_all.add_argument("--out", required=True, help="folder for the results, summary.csv and the report")
    grade_all.add_argument("--jobs", "-j", type=int, default=os.cpu_count() or 1, help="submissions graded at once (default: one per CPU)")
    grade_all.add_argument("--quiet", action="store_true", help="no progress bar")
    _grading_args(grade_all)
    grade_all.set_defaults(run=cmd_grade_all)

    bench = commands.add_parser(
        "bench",
        help="time grade-all against nbgrader autograde on the same notebooks; print seconds per submission, ratio, peak memory",
        description="Time grade-all against nbgrader autograde on the same N notebooks, in one run; print seconds per submission, their ratio and peak memory.",
    )
    bench.add_argument("--n", type=int, default=20, help="submissions to grade (default 20)")
    bench.add_argument("--jobs", "-j", type=int, default=os.cpu_count() or 1, help="the kit's parallel graders (default: one per CPU)")
    bench.add_argument("--keep", help="copy the benchmark's folders (class, course, results) here")
    bench.set_defaults(run=cmd_bench)

    gradebook = commands.add_parser(
        "gradebook",
        help="store grade-all's points in nbgrader's gradebook.db (for nbgrader export and formgrader)",
        description="Store the points of every OUT/<student>/results.json in nbgrader's gradebook.db, per grade cell.",
    )
    gradebook.add_argument("results", help="the --out folder of grade-all")
    _assignment_arg(gradebook, required=True)
    gradebook.add_argument("--course", default=str(KIT_ROOT), help="the nbgrader course folder holding gradebook.db (default: this repository)")
    gradebook.set_defaults(run=cmd_gradebook)

    gradescope = commands.add_parser(
        "gradescope",
        help="build the Gradescope autograder zip (setup.sh, run_autograder and the kit)",
        description="Build the Gradescope autograder zip: setup.sh, run_autograder and the kit, for one assignment.",
    )
    _assignment_arg(gradescope, required=True)
    gradescope.add_argument("--out", required=True, help="the zip file to write")
    gradescope.add_argument("--timeout", type=float, default=10.0, help="seconds per graded name on Gradescope (default 10)")
    gradescope.set_defaults(run=cmd_gradescope)

    demo = commands.add_parser("demo", help="build the release and grade the bundled sample submissions", description="Build the release and grade the bundled sample submissions.")
    demo.set_defaults(run=cmd_demo)

    args = parser.parse_args(argv)
    try:
        return args.run(args)
    except (KitError, SubmissionError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
