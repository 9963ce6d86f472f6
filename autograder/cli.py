"""The kit's one command: ``python -m autograder SUBCOMMAND``.

Exit status of the grade commands (results/outcome.py maps each outcome): 0 graded;
1 graded, under --fail-under; 2 bad input (a submission with nothing gradable, a wrong
option); 3 the kit itself could not grade (the host's sandbox, CUDA, an error in a
grader, any crash): results.json then says "not graded" and no score is the student's;
130 interrupted by Ctrl-C or SIGTERM (grade-all: a rerun resumes).

Each command imports what it runs when it runs (the imports inside the cmd_ functions):
``--help`` and every other command start without nbgrader, PyTorch or matplotlib.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from . import assignments
from .config import GradingConfig
from .errors import KitError, no_room, no_room_message
from .interrupts import interrupt_on_terminate
from .public.loader import SubmissionError
from .results.scoring import points_text
from .results.summaries import markdown_not_graded, markdown_summary, summary_text
from .results.text import clean
from .results.write import HIDDEN_VISIBILITY, write_outcome

EXIT_UNDER, EXIT_INPUT, EXIT_INTERRUPTED = 1, 2, 130


def _assignment_arg(parser, required=False):
    parser.add_argument(
        "--assignment",
        "-a",
        choices=assignments.names(),
        required=required,
        help="which assignment" if required else "which assignment (inferred from the submission when left out)",
    )


def _jobs_arg(parser, what: str) -> None:
    parser.add_argument("--jobs", "-j", type=int, default=os.cpu_count() or 1, help=f"{what} (default: one per CPU)")


def _column_id(text: str) -> str:
    if text and not text.isdigit():
        raise argparse.ArgumentTypeError(f"{text!r} is not an id: the LMS's ids are numbers (e.g. 123456)")
    return text


def _say(text: str) -> None:
    print(text, file=sys.stderr)


def add_build(commands) -> None:
    build_command = commands.add_parser(
        "build",
        help="generate the stubs, the nbgrader source notebook and the release (runs nbgrader)",
        description="Generate the stubs, the nbgrader source notebook and the release (runs nbgrader).",
    )
    build_command.add_argument("assignments", nargs="*", help="assignments to build (default: all)")
    build_command.set_defaults(run=cmd_build)


def cmd_build(args) -> int:
    from .author.build import build, given_away  # here: nbgrader and nbformat, for this command only

    for name in args.assignments or assignments.names():
        changed = build(assignments.get(name))
        print(f"{name}: " + (", ".join(changed) if changed else "up to date"))
        for line in given_away(assignments.get(name)):
            print(f"  {line}")
    return 0


def add_grade(commands) -> None:
    grade_command = commands.add_parser(
        "grade",
        help="grade one submission into DIR/results.json (Gradescope's format)",
        description="Grade one submission into DIR/results.json (Gradescope's format) and DIR/junit.xml.",
    )
    grade_command.add_argument("submission", help="a notebook, a .py file, a package folder or a repository folder")
    _assignment_arg(grade_command)
    grade_command.add_argument("--out", required=True, help="folder for results.json and junit.xml")
    grade_command.add_argument(
        "--fail-under",
        type=float,
        metavar="PERCENT",
        help="exit with status 1 when the score is under PERCENT of the points (for CI)",
    )
    grade_command.add_argument(
        "--markdown",
        metavar="FILE",
        help="append a table of the points, or why it was not graded, to FILE (e.g. $GITHUB_STEP_SUMMARY)",
    )
    grade_command.add_argument(
        "--hidden-visibility",
        default=HIDDEN_VISIBILITY,
        choices=["hidden", "after_due_date", "after_published", "visible"],
        help="Gradescope visibility of the hidden checks' details (default after_due_date)",
    )
    grade_command.add_argument(
        "--show-score",
        action="store_true",
        help="show the points at once (Gradescope hides the total while any test is hidden) and keep the hidden checks' details out of results.json",
    )
    GradingConfig.add_arguments(grade_command)
    grade_command.set_defaults(run=cmd_grade)


def cmd_grade(args) -> int:
    from .deliver.one_submission import grade_alone  # here: the grading engine, for the grade command only

    submission, out = Path(args.submission), Path(args.out)
    outcome, name = grade_alone(submission, args.assignment, GradingConfig.from_arguments(args))
    visibility = "visible" if args.show_score else args.hidden_visibility
    write_outcome(outcome, out, name, hidden_visibility=visibility, withhold_hidden=args.show_score)
    report = outcome.report
    if report is None:
        _append(args.markdown, markdown_not_graded(outcome.message, name))
        if outcome.student_fault:
            _say(f"error: {clean(outcome.message)}")
        else:
            _say(f"error: the kit could not grade {submission}: {clean(outcome.message)}")
            _say(f"wrote {out / 'results.json'}: not graded (no score is the student's)")
        return outcome.exit_code
    print(summary_text(report))
    print(f"isolation: {report.isolation['tier']} ({report.isolation['limits']})")
    print(f"device: {report.device}" + (f" ({clean(report.device_why)})" if report.device_why else ""))
    print(f"wrote {out / 'results.json'} and {out / 'junit.xml'}")
    _append(args.markdown, markdown_summary(report))
    for check in report.internal_errors():
        _say(f"error: the kit failed on {check.name}: {check.title}: {clean(check.message, 300)}")
    if outcome.exit_code:
        return outcome.exit_code
    percent = 100 * report.score / report.max_score if report.max_score else 0
    if args.fail_under is not None and percent < args.fail_under:
        _say(
            f"score {points_text(report.score)} of {points_text(report.max_score)} ({float(percent):.1f}%) is under --fail-under {args.fail_under:g}%"
        )
        return EXIT_UNDER
    return 0


def _append(path: str | None, text: str) -> None:
    """Add text to a file (--markdown: a CI job's summary), if one was named."""
    if path:
        with open(path, "a", encoding="utf-8") as file:
            file.write(text)


def _shard(text: str) -> tuple[int, int]:
    """--shard I/N: the I-th of N shares of the class, 1 <= I <= N."""
    i, slash, n = text.partition("/")
    if not (slash and i.isdigit() and n.isdigit() and 1 <= int(i) <= int(n)):
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a shard: write I/N, the I-th of N shards, 1 <= I <= N (e.g. 2/8)"
        )
    return int(i), int(n)


def _class_file_args(parser) -> None:
    """The options of the class's files: grade-all's, and merge's for a class graded in shards."""
    parser.add_argument(
        "--lms-column-id",
        default="",
        type=_column_id,
        metavar="N",
        help="the LMS's id of the grade column, for the grade file written beside summary.csv: Canvas's assignment id "
        "(the N of .../assignments/N), Blackboard's Grade Centre column id (after '|' in Work Offline > Download)",
    )
    parser.add_argument(
        "--manual-points",
        metavar="FILE",
        help="a CSV of the points a person gave the written answers (a filled copy of DIR/manual_points_template.csv): "
        "summary.csv then counts them in its total",
    )
    parser.add_argument(
        "--late-policy",
        metavar="FILE",
        help="the course's late policy (a TOML file: due date, time zone, grace, penalty, extensions; "
        "docs/late-policy.md), applied from the submission times the export gives: summary.csv, the LMS's file and "
        "each feedback page show it; changing it grades no one again",
    )


def add_grade_all(commands) -> None:
    grade_all_command = commands.add_parser(
        "grade-all",
        help="grade a class (a folder or zip, as an LMS exports it), in parallel, with a report and a feedback file per student",
        description="Grade every submission of a class: a folder or a zip as Canvas, Moodle, Blackboard, Gradescope or GitHub Classroom export it, or a folder per student. Writes DIR/summary.csv, a class report (report.txt, report.png), DIR/students/<student>/ (results.json, feedback.html, feedback.md), the grade file the LMS imports (DIR/<lms>_grades.csv; for Moodle also moodle_feedback.zip), and the class as a whole: the groups of students whose code fails an exercise the same way (clusters.json; notes for a group come from solutions/<a>/cluster_notes.toml), the most alike pairs of submissions (similarity.csv: a flag, never a verdict) and a dashboard of it all (report.html). A rerun grades again only what changed: a submission, or anything that decides a grade; Ctrl-C stops, and a rerun resumes.",
    )
    grade_all_command.add_argument("submissions", help="a folder or a .zip of submissions")
    _assignment_arg(grade_all_command)
    grade_all_command.add_argument("--out", required=True, help="folder for the results, summary.csv and the report")
    _jobs_arg(grade_all_command, "submissions graded at once")
    grade_all_command.add_argument(
        "--force", action="store_true", help="grade everyone again, even where nothing changed"
    )
    grade_all_command.add_argument(
        "--show-hidden", action="store_true", help="put the hidden checks' details in the students' feedback files"
    )
    grade_all_command.add_argument("--quiet", action="store_true", help="no progress bar")
    _class_file_args(grade_all_command)
    grade_all_command.add_argument(
        "--shard",
        type=_shard,
        metavar="I/N",
        help="grade only the I-th of N shares of the class (by a hash of each student's key) into --out, for merge; "
        "each shard on a machine of its own (a Slurm array task, a Kubernetes pod, a CI job)",
    )
    GradingConfig.add_arguments(grade_all_command)
    grade_all_command.set_defaults(run=cmd_grade_all)


def cmd_grade_all(args) -> int:
    from .deliver.grade_all.batch import grade_all  # here: the class's machinery (intake, matplotlib), grade-all only

    config = GradingConfig.from_arguments(args)
    if args.shard and (args.manual_points or args.lms_column_id or args.late_policy):
        raise KitError(
            "--manual-points, --lms-column-id and --late-policy are for the class's files, which merge writes: "
            "pass them to merge"
        )
    return grade_all(
        Path(args.submissions),
        args.assignment,
        Path(args.out),
        config,
        jobs=args.jobs,
        progress=not args.quiet,
        force=args.force,
        show_hidden=args.show_hidden,
        lms_column_id=args.lms_column_id,
        manual_points=Path(args.manual_points) if args.manual_points else None,
        late_policy=Path(args.late_policy) if args.late_policy else None,
        shard=args.shard,
    )


def add_merge(commands) -> None:
    merge_command = commands.add_parser(
        "merge",
        help="merge the shards of a class (grade-all --shard I/N) into what one grade-all of the class writes",
        description="Merge the folders of grade-all --shard 1/N ... N/N into DIR: summary.csv, the LMS's grade file, "
        "clusters.json, similarity.csv (across every shard), report.html, report.txt, the written answers' page and "
        "template, and DIR/students/<student>/, as one grade-all of the class writes them. It grades no one: a "
        "student whose submission changed since their shard graded it is refused, naming the shard to run again.",
    )
    merge_command.add_argument("submissions", help="the folder or .zip of submissions the shards graded")
    merge_command.add_argument("shards", nargs="+", metavar="SHARD_DIR", help="each shard's --out folder")
    merge_command.add_argument("--out", required=True, help="folder for the class's results (none of the shards')")
    _jobs_arg(merge_command, "processes comparing submissions for similarity.csv")
    _class_file_args(merge_command)
    merge_command.set_defaults(run=cmd_merge)


def cmd_merge(args) -> int:
    from .deliver.grade_all.batch import merge  # here: the class's machinery (intake, report, matplotlib), merge only

    return merge(
        Path(args.submissions),
        [Path(folder) for folder in args.shards],
        Path(args.out),
        jobs=args.jobs,
        lms_column_id=args.lms_column_id,
        manual_points=Path(args.manual_points) if args.manual_points else None,
        late_policy=Path(args.late_policy) if args.late_policy else None,
    )


def add_cluster_to_mistake(commands) -> None:
    to_mistake_command = commands.add_parser(
        "cluster-to-mistake",
        help="turn a group of clusters.json into a known mistake: check that an edit of the reference does what the group does, then print or append the entry",
        description="Turn a group of students (an id of grade-all's clusters.json) into an entry of mistakes.py: "
        "the edit of the reference (--old becomes --new in --target's code) is graded like a submission, and the "
        "entry is printed (or, with --append, added to mistakes.py) only when it fails the group's exercise exactly as the group does.",
    )
    to_mistake_command.add_argument("group", help="the group's id, from clusters.json or report.html")
    to_mistake_command.add_argument(
        "--out", required=True, help="the --out folder of the grade-all that found the group"
    )
    _assignment_arg(to_mistake_command, required=True)
    to_mistake_command.add_argument("--id", required=True, help="the new mistake's id (lower case, underscores)")
    to_mistake_command.add_argument(
        "--old", required=True, help="text of the reference that the mistake replaces (once in it)"
    )
    to_mistake_command.add_argument("--new", required=True, help="what the mistake puts in its place")
    to_mistake_command.add_argument(
        "--message", required=True, help="what a student reads: what is wrong and how to look for it"
    )
    to_mistake_command.add_argument(
        "--target", help="the graded name whose code holds the mistake (default: the group's exercise)"
    )
    to_mistake_command.add_argument("--append", action="store_true", help="add the entry to solutions/<a>/mistakes.py")
    GradingConfig.add_arguments(to_mistake_command)
    to_mistake_command.set_defaults(run=cmd_cluster_to_mistake)


def cmd_cluster_to_mistake(args) -> int:
    from .deliver.class_view.cluster_to_mistake import cluster_to_mistake  # here: the grading engine, this command only

    edit = {"id": args.id, "target": args.target, "old": args.old, "new": args.new, "message": args.message}
    return cluster_to_mistake(
        Path(args.out),
        assignments.get(args.assignment),
        args.group,
        edit,
        args.append,
        GradingConfig.from_arguments(args),
    )


def add_bench(commands) -> None:
    bench_command = commands.add_parser(
        "bench",
        help="measure grading: cost per submission against a bare `import torch`, nbgrader autograde, scaling with jobs",
        description="Measure, in one run: the kit's marginal and total cost per submission, a bare `import torch` as baseline, nbgrader autograde on the same notebooks, peak memory of each, and how throughput scales with --jobs. With --class-steps: grade-all's steps over the whole class alone (summary, groups, similarity, dashboard, report, ...) on synthetic classes of 100, 1,000 and 10,000 students, their seconds, core-seconds and peak memory.",
    )
    bench_command.add_argument("--n", type=int, default=24, help="submissions in the class (default 24)")
    _jobs_arg(bench_command, "the kit's parallel graders")
    bench_command.add_argument(
        "--scaling",
        type=int,
        default=0,
        metavar="N",
        help="also grade a class of N with 1, 2, 4, ... jobs up to the CPUs here, and print the table",
    )
    bench_command.add_argument("--keep", help="copy the benchmark's folders (class, course, results) here")
    bench_command.add_argument(
        "--device",
        choices=["cpu", "cuda"],
        default="cpu",
        help="cuda: also grade classes of N and of --scaling's size (else 2N) on the GPU beside the CPU, with the "
        "GPU memory each concurrent grading takes (default cpu)",
    )
    bench_command.add_argument(
        "--devices-only", action="store_true", help="with --device cuda: only the bare import and that table"
    )
    bench_command.add_argument(
        "--class-steps",
        action="store_true",
        help="time instead grade-all's steps over the whole class alone (answers, summary, notes, groups, similarity, "
        "dashboard, LMS file, report) on synthetic classes, as grading leaves them and again with nothing changed",
    )
    bench_command.add_argument(
        "--class-sizes",
        default="100,1000,10000",
        metavar="N,N,...",
        help="the synthetic classes' sizes for --class-steps (default 100,1000,10000)",
    )
    bench_command.set_defaults(run=cmd_bench)


def cmd_bench(args) -> int:
    from . import bench  # here: the benchmark's machinery, for bench only

    keep = Path(args.keep) if args.keep else None
    if args.class_steps:
        bench.print_class_steps(bench.class_steps(_sizes(args.class_sizes), jobs=args.jobs, keep=keep))
    else:
        figures = bench.bench(args.n, args.jobs, args.scaling, keep, device=args.device, devices_only=args.devices_only)
        bench.print_figures(figures)
    return 0


def _sizes(text: str) -> tuple[int, ...]:
    try:
        sizes = tuple(int(part) for part in text.split(","))
    except ValueError:
        sizes = ()
    if not sizes or min(sizes) < 2:
        raise KitError(f"--class-sizes {text!r}: give class sizes of 2 or more, separated by commas (100,1000,10000)")
    return sizes


def add_collect(commands) -> None:
    collect_command = commands.add_parser(
        "collect",
        help="put an LMS export's notebooks into nbgrader's submitted/<student>/<assignment>/ (for nbgrader autograde)",
        description="Read an LMS export (a folder or a zip, as grade-all reads it) and put each student's notebook into COURSE/submitted/<student>/<assignment>/, and the students into gradebook.db, for nbgrader autograde. The student ids are grade-all's keys.",
    )
    collect_command.add_argument("submissions", help="a folder or a .zip of submissions")
    _assignment_arg(collect_command, required=True)
    collect_command.add_argument(
        "--course", default=str(Path.cwd()), help="the nbgrader course folder holding gradebook.db (default: here)"
    )
    collect_command.set_defaults(run=cmd_collect)


def cmd_collect(args) -> int:
    from .deliver.routes.gradebook import collect  # here: nbformat and nbgrader's course, for this command only

    course = Path(args.course)
    placed, skipped = collect(Path(args.submissions), assignments.get(args.assignment), course)
    for entry, why in skipped:
        print(f"  skipped {entry}: {why}")
    print(
        f"put {len(placed)} students' notebooks into {course / 'submitted'}/<student>/{args.assignment}/ "
        f"and the students into gradebook.db: `nbgrader autograde {args.assignment}` grades them"
    )
    return 0


def add_gradebook(commands) -> None:
    gradebook_command = commands.add_parser(
        "gradebook",
        help="store grade-all's points in nbgrader's gradebook.db (for nbgrader export, formgrader and feedback)",
        description="Store the points of grade-all's results in nbgrader's gradebook.db, per grade cell, as the record: every stored score that differs (nbgrader autograde's, which a notebook can forge, a manual score, extra credit) is named and replaced.",
    )
    gradebook_command.add_argument("results", help="the --out folder of grade-all")
    _assignment_arg(gradebook_command, required=True)
    gradebook_command.add_argument(
        "--course", default=str(Path.cwd()), help="the nbgrader course folder holding gradebook.db (default: here)"
    )
    gradebook_command.add_argument(
        "--keep-manual",
        action="store_true",
        help="keep the manual scores, extra credit and late penalties already in gradebook.db (they are still named); "
        "a late penalty only where grade-all applied no late policy",
    )
    gradebook_command.set_defaults(run=cmd_gradebook)


def cmd_gradebook(args) -> int:
    from .deliver.routes.gradebook import export  # here: nbformat and nbgrader's course, for this command only

    totals = export(
        Path(args.results), assignments.get(args.assignment), Path(args.course), keep_manual=args.keep_manual
    )
    for student, total in sorted(totals.items()):
        print(f"  {student:<24} {total:g}")
    print(
        f"stored {len(totals)} students' points in {Path(args.course) / 'gradebook.db'}: `nbgrader export` writes grades.csv"
    )
    return 0


def add_gradescope(commands) -> None:
    gradescope_command = commands.add_parser(
        "gradescope",
        help="build the Gradescope autograder zip (setup.sh, run_autograder and the kit)",
        description="Build the Gradescope autograder zip for one assignment: setup.sh, run_autograder and the trusted side of the kit.",
    )
    _assignment_arg(gradescope_command, required=True)
    gradescope_command.add_argument("--out", required=True, help="the zip file to write")
    gradescope_command.add_argument(
        "--show-score",
        action="store_true",
        help="show students their total before the due date (the hidden checks' details still wait)",
    )
    GradingConfig.add_arguments(gradescope_command)
    gradescope_command.set_defaults(run=cmd_gradescope)


def cmd_gradescope(args) -> int:
    from .deliver.grade_all.answers import gradescope_note  # here: the lessons' reader, for this command only
    from .deliver.routes.gradescope import write_bundle  # here: the bundle's machinery, for this command only

    config = GradingConfig.from_arguments(args)
    path = write_bundle(assignments.get(args.assignment), Path(args.out), config, show_score=args.show_score)
    print(
        f"wrote {path}: upload it as the assignment's autograder on Gradescope (setup.sh and run_autograder at its root)"
    )
    print(gradescope_note(assignments.get(args.assignment)), end="")
    return 0


def add_push(commands) -> None:
    push_command = commands.add_parser(
        "push",
        help="send grade-all's grades and feedback pages to an LMS through its API (Canvas)",
        description="Send grade-all's grades and feedback pages to an LMS through its API.",
    )
    lms_commands = push_command.add_subparsers(dest="lms", required=True, metavar="LMS")
    push_canvas_command = lms_commands.add_parser(
        "canvas",
        help="each student's grade and feedback page into a Canvas assignment, through Canvas's REST API",
        description="Send each student's grade (summary.csv's, as the LMS grade files carry it) and feedback page (as a "
        "submission comment with the page attached) to a Canvas assignment through Canvas's REST API. It first prints "
        "what would change against what Canvas holds now, and sends only with --apply; a rerun sends nothing new. "
        "Nothing is sent for a student the kit could not grade, whose written answers still wait for points, or "
        "without a Canvas user id: each is listed. The token is read from CANVAS_API_TOKEN (a teacher's or TA's: "
        "Account > Settings > New access token), never from the command line.",
    )
    push_canvas_command.add_argument("out", help="the --out folder of grade-all (summary.csv, students/<student>/)")
    push_canvas_command.add_argument(
        "--course", required=True, type=_canvas_id, metavar="ID", help="the course's id: the N of .../courses/N"
    )
    push_canvas_command.add_argument(
        "--assignment",
        required=True,
        type=_canvas_id,
        metavar="ID",
        help="the Canvas assignment's id: the N of .../assignments/N",
    )
    push_canvas_command.add_argument(
        "--url", help="the Canvas instance, e.g. https://canvas.example.edu (default: $CANVAS_API_URL)"
    )
    sending = push_canvas_command.add_mutually_exclusive_group()
    sending.add_argument(
        "--dry-run", dest="apply", action="store_false", help="only show what would change (the default)"
    )
    sending.add_argument("--apply", dest="apply", action="store_true", help="send the changes shown")
    push_canvas_command.set_defaults(run=cmd_push_canvas, apply=False)


def cmd_push_canvas(args) -> int:
    from .deliver.routes.canvas_push import push_canvas  # here: canvasapi and requests, for this command only

    return push_canvas(Path(args.out), args.course, args.assignment, url=args.url, apply=args.apply)


def _canvas_id(text: str) -> int:
    if not text.isdigit() or text.startswith("0"):
        raise argparse.ArgumentTypeError(f"{text!r} is not a Canvas id: Canvas's ids are numbers (e.g. 123456)")
    return int(text)


def add_demo(commands) -> None:
    demo_command = commands.add_parser(
        "demo",
        help="build the releases and grade the bundled samples",
        description="Build the releases with nbgrader and grade the reference, the blank release and a sample with one bug.",
    )
    demo_command.set_defaults(run=cmd_demo)


def cmd_demo(args) -> int:
    from .demo import demo  # here: nbgrader and the grading engine, for demo only

    return demo()


def add_doctor(commands) -> None:
    doctor_command = commands.add_parser(
        "doctor",
        help="check this host before a course: the cgroups and isolation tier it gives and why, the GPU, nbgrader",
        description="Check this host: where the job cgroups go and how, which isolation tier grading gets here and why, whether CUDA can be isolated on its GPU (with --device cuda: the same verdicts there as on the CPU), whether nbgrader's kernel can import the kit.",
    )
    _jobs_arg(doctor_command, "gradings at once when it compares the GPU's verdicts with the CPU's")
    GradingConfig.add_arguments(doctor_command)
    doctor_command.set_defaults(run=cmd_doctor)


def cmd_doctor(args) -> int:
    from .doctor import doctor  # here: the sandbox's probes of the host, for doctor only

    return doctor(GradingConfig.from_arguments(args), jobs=args.jobs)


def build_parser() -> argparse.ArgumentParser:
    """The command line: each subcommand's arguments are declared beside the function that runs it."""
    parser = argparse.ArgumentParser(
        prog="python -m autograder",
        description="Build, release and grade the Transformer attention assignments.",
        epilog="Grade commands exit with 0 (graded), 1 (under --fail-under), 2 (bad input) or 3 (the kit could not grade).",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for add in (
        add_build,
        add_grade,
        add_grade_all,
        add_merge,
        add_cluster_to_mistake,
        add_bench,
        add_collect,
        add_gradebook,
        add_gradescope,
        add_push,
        add_demo,
        add_doctor,
    ):
        add(commands)
    return parser


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    interrupt_on_terminate()
    try:
        return args.run(args)
    except (KitError, SubmissionError) as error:
        _say(f"error: {clean(error, 4000)}")
        return EXIT_INPUT
    except OSError as error:
        if not no_room(error):
            raise
        _say(f"error: {clean(no_room_message(error), 4000)}")
        return EXIT_INPUT
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM, after every clean-up on the way out
        _say("interrupted")
        return EXIT_INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())
