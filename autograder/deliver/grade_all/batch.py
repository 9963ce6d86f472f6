"""Grade a class: an LMS export in, a summary, a class report and a feedback file per student out.

    python -m autograder grade-all SUBMISSIONS --out DIR [--assignment mha] [--jobs 4]

SUBMISSIONS is a folder or a zip as Canvas, Moodle, Blackboard, Gradescope or GitHub
Classroom export it, or a folder per student (deliver/intake/ reads them). In order:

1. the intake, and the assignment (named, or inferred from the first submissions);
2. each student whose submission, or anything that decides a grade, changed since an
   earlier run (deliver/grade_all/regrade.py; ``--force``: everyone) graded into
   DIR/students/<key>/ (deliver/grade_all/workers.py); a student the export does not tell the
   files of (``undecided``) is graded for no one, "not graded" with the reason, no score;
3. every student's results, typed, read once (those of earlier runs) or handed back by
   the workers, go to what is written of the class, whatever happened to any student:
   the written answers' page (answers.py), the late policy's record in each student's
   results and feedback (late/apply.py: ``--late-policy``, read before anyone is graded),
   DIR/summary.csv (summary.py), the class as a whole (class_view/insight.py: notes, groups,
   similarity, dashboard), the LMS's grade file (routes/lms_grades.py) and the class report
   (class_view/report.py: report.txt, report.png).

The exit status is 3 when the kit failed on any student (never their zero), 130 when
interrupted (Ctrl-C: what is graded is kept, and a rerun grades only the rest).

A class past one machine is graded in shards, then merged:

    python -m autograder grade-all SUBMISSIONS --shard I/N --out DIR_I    # for I in 1..N, anywhere
    python -m autograder merge SUBMISSIONS DIR_1 ... DIR_N --out DIR

A shard reads the whole export (every student's key is the one grade-all gives), does
step 2 for its share of the students (regrade.py's shard_of: a hash of the key) and
writes DIR_I/shard.json (``ShardRecord``: each of its students' status in that run) once
it is done, in place of step 3. ``merge`` reads the export again, checks that the shards
graded it as it is now (each submission's digest), copies each student's folder
(where an earlier merge copied it and the shard has not graded them since, it stays, as
an earlier run's does: "unchanged", as it is where the shard's own run kept it), takes
each other status as its shard's run gave it, and does step 3: what one
grade-all of the class writes, byte for byte where nothing in a file holds a time. It
grades no one.
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from ... import assignments
from ...assignments import Assignment
from ...config import GradingConfig
from ...errors import KitError
from ...grade.submission import infer_assignment
from ...public import trees
from ...results.atomic import write_atomically
from ...results.outcome import GRADED, KIT_ERROR, NOT_GRADED
from ...results.read import Results
from ...results.scoring import points_text
from ...results.text import clean, clean_name
from ...results.write import RESULTS
from ..class_view.insight import write_insight
from ..class_view.report import start_figure, write_report
from ..intake import Intake, Submission, read_intake
from ..late.apply import apply_late
from ..late.policy import LatePolicy, read_policy
from ..routes.lms_grades import write_lms_grades
from . import answers
from .class_folder import read_class, results_path, student_folder
from .regrade import grading_digest, is_done, shard_of, submission_digest
from .summary import points_possible, write_summary
from .workers import Grading, Run, grade_students

SHARD_RECORD = "shard.json"


@dataclass(frozen=True)
class ShardRecord:
    """DIR_I/shard.json: what a shard's run graded, for merge. Written when the run ends, removed when one starts."""

    shard: int  # I of --shard I/N
    shards: int  # N
    assignment: str
    grading_digest: str
    show_hidden: bool
    students: dict[str, dict]  # by key: submission_digest, status, reason, unchanged, results (written or kept)


def grade_all(
    folder: Path,
    assignment_name: str | None,
    out: Path,
    config: GradingConfig,
    jobs: int = 1,
    progress: bool = True,
    force: bool = False,
    show_hidden: bool = False,
    lms_column_id: str = "",
    manual_points: Path | None = None,
    late_policy: Path | None = None,
    shard: tuple[int, int] | None = None,
) -> int:
    """Grade a class into out/; print the report; return the command's exit status (130 when interrupted).

    shard: (I, N) grades only the I-th of N shares of the class, and writes out/shard.json instead of the class's files."""
    try:
        return _grade_all(
            folder,
            assignment_name,
            Path(out),
            config,
            jobs,
            progress,
            force,
            show_hidden,
            lms_column_id,
            manual_points,
            late_policy,
            shard,
        )
    except KeyboardInterrupt:  # what is graded is kept: a rerun grades only the rest
        print("\ninterrupted: rerun to resume", file=sys.stderr)
        return 130


def _grade_all(
    folder: Path,
    assignment_name: str | None,
    out: Path,
    config: GradingConfig,
    jobs: int,
    progress: bool,
    force: bool,
    show_hidden: bool,
    lms_column_id: str,
    manual_points: Path | None,
    late_policy: Path | None,
    shard: tuple[int, int] | None,
) -> int:
    out.mkdir(parents=True, exist_ok=True, mode=0o700)  # the class's results: no other user's, no student uid's
    (out / SHARD_RECORD).unlink(missing_ok=True)  # a shard stopped half way has none: merge refuses it
    scratch = tempfile.mkdtemp(prefix="autograder-intake-")
    try:
        intake = read_intake(folder, Path(scratch))
        if not intake.submissions:
            raise KitError(f"{clean_name(folder)} holds no submission" + _skipped_text(intake))
        assignment = assignments.get(assignment_name) if assignment_name else _infer(intake)
        written = answers.written_of(assignment, intake, manual_points)  # a bad points file stops here, before grading
        policy = read_policy(late_policy, assignment.name) if late_policy else None  # so does a bad policy
        if shard is not None:  # its share only, each student with the key the whole class gives them
            intake = replace(intake, submissions=[s for s in intake.submissions if _in_shard(s, shard)])
        run = Run(
            out,
            grading_digest(assignment, config),
            {s.key: submission_digest(s.path) for s in intake.submissions},
            show_hidden,
        )
        earlier = read_class(intake, out)  # an earlier run's: each results.json read once
        todo = [
            s
            for s in intake.submissions
            if not s.undecided
            and (force or not is_done(earlier.get(s.key), run.grading_digest, run.submission_digests[s.key]))
        ]
        unchanged = {s.key for s in intake.submissions if s not in todo and not s.undecided}
        gradings, stopped = _grade_todo(todo, assignment, config, run, jobs, progress, (Path(folder), out))
        status = _class_status(intake, unchanged, gradings)
        results = _class_results(intake, earlier, gradings)
        if shard is not None:
            _write_shard_record(out, shard, assignment, run, status, unchanged, results)
        else:
            text, hand, lms, late = write_class(
                assignment,
                intake,
                out,
                results,
                status,
                unchanged,
                written,
                show_hidden=show_hidden,
                jobs=jobs,
                lms_column_id=lms_column_id,
                digests=run.submission_digests,
                policy=policy,
            )
    finally:  # a student's tree of any depth in the unpacked export: removed without recursion
        trees.remove_tree(scratch)
    if shard is not None:
        _say_what_the_shard_did(intake, out, todo, status, stopped, shard)
    else:
        print(text, end="")
        _say_what_was_done(intake, out, todo, status, stopped, written, hand, lms, late)
    return 3 if any(what == KIT_ERROR for what, _ in status.values()) else 0


def merge(
    folder: Path,
    shard_folders: list[Path],
    out: Path,
    jobs: int = 1,
    lms_column_id: str = "",
    manual_points: Path | None = None,
    late_policy: Path | None = None,
) -> int:
    """Write into out/ what one grade-all of the class writes, from the shards' folders; grade no one.

    folder: the export the shards graded (its names, ids, skipped entries and submissions make the class's files).
    Returns the exit status grade-all would give (3 when the kit failed on any student, 130 when interrupted)."""
    try:
        return _merge(
            Path(folder), [Path(f) for f in shard_folders], Path(out), jobs, lms_column_id, manual_points, late_policy
        )
    except KeyboardInterrupt:  # nothing is graded here: a rerun writes it all again
        print("\ninterrupted: rerun to merge", file=sys.stderr)
        return 130


def _merge(
    folder: Path,
    shard_folders: list[Path],
    out: Path,
    jobs: int,
    lms_column_id: str,
    manual_points: Path | None,
    late_policy: Path | None,
) -> int:
    shards = read_shards(shard_folders)
    if any(out.resolve() == place.resolve() for place, _ in shards.values()):
        raise KitError(f"--out {clean_name(out)} is one of the shards' folders: merge into a folder of its own")
    first = shards[1][1]
    out.mkdir(parents=True, exist_ok=True, mode=0o700)
    scratch = tempfile.mkdtemp(prefix="autograder-intake-")
    try:
        intake = read_intake(folder, Path(scratch))
        if not intake.submissions:
            raise KitError(f"{clean_name(folder)} holds no submission" + _skipped_text(intake))
        assignment = assignments.get(first.assignment)
        written = answers.written_of(assignment, intake, manual_points)
        policy = read_policy(late_policy, assignment.name) if late_policy else None
        entries = _shard_entries(intake, shards)
        merged = read_class(intake, out)  # an earlier merge's: kept where the shard has not graded them since
        unchanged = {key for key, (_, entry) in entries.items() if entry["unchanged"]}
        for key, (place, entry) in entries.items():
            if is_done(merged.get(key), first.grading_digest, entry["submission_digest"]) and _merged_since(
                out, place, key
            ):
                unchanged.add(key)
            else:
                _copy_student(place, out, key, entry["results"])
        earlier = read_class(intake, out)
        gradings = {
            key: Grading(entry["status"], entry["reason"], earlier.get(key))
            for key, (_, entry) in entries.items()
            if key not in unchanged
        }
        status = _class_status(intake, unchanged, gradings)
        results = _class_results(intake, earlier, gradings)
        text, hand, lms, late = write_class(
            assignment,
            intake,
            out,
            results,
            status,
            unchanged,
            written,
            show_hidden=first.show_hidden,
            jobs=jobs,
            lms_column_id=lms_column_id,
            digests={key: entry["submission_digest"] for key, (_, entry) in entries.items()},
            policy=policy,
        )
    finally:
        trees.remove_tree(scratch)
    print(text, end="")
    print(f"\nmerged {len(shards)} shards: {', '.join(clean_name(place) for place, _ in shards.values())}")
    todo = [s for s in intake.submissions if s.key in gradings]
    _say_what_was_done(intake, out, todo, status, "", written, hand, lms, late)
    return 3 if any(what == KIT_ERROR for what, _ in status.values()) else 0


def _in_shard(submission: Submission, shard: tuple[int, int]) -> bool:
    """Is this student the shard's to grade? A student the export does not tell the files of is no shard's."""
    return not submission.undecided and shard_of(submission.key, shard[1]) == shard[0]


def _write_shard_record(
    out: Path,
    shard: tuple[int, int],
    assignment: Assignment,
    run: Run,
    status: dict[str, tuple[str, str]],
    unchanged: set[str],
    results: dict[str, Results],
) -> None:
    students = {
        key: {
            "submission_digest": run.submission_digests[key],
            "status": what,
            "reason": reason,
            "unchanged": key in unchanged,
            "results": key in results,
        }
        for key, (what, reason) in status.items()
    }
    record = ShardRecord(shard[0], shard[1], assignment.name, run.grading_digest, run.show_hidden, students)
    write_atomically(out / SHARD_RECORD, json.dumps(asdict(record), indent=1, ensure_ascii=True) + "\n")


def read_shards(folders: list[Path]) -> dict[int, tuple[Path, ShardRecord]]:
    """Each shard's folder and record, by I; refused unless they are the N shards of one grading, each once."""
    shards: dict[int, tuple[Path, ShardRecord]] = {}
    for place in folders:
        try:
            record = ShardRecord(**json.loads((place / SHARD_RECORD).read_text(encoding="utf-8")))
        except FileNotFoundError:
            raise KitError(
                f"{clean_name(place)} has no {SHARD_RECORD}: it is not a shard's folder, or its grade-all --shard has "
                "not ended (still running, stopped, or interrupted): run it again, it grades only what is left"
            ) from None
        except (OSError, ValueError, TypeError) as error:
            raise KitError(
                f"{clean_name(place / SHARD_RECORD)} cannot be read ({clean(error, 200)}): run that shard again"
            ) from None
        if record.shard in shards:
            raise KitError(
                f"{clean_name(place)} and {clean_name(shards[record.shard][0])} are both shard {record.shard}/{record.shards}"
            )
        shards[record.shard] = (place, record)
    records = [record for _, record in shards.values()]
    if not records:
        raise KitError("no shard's folder given: merge EXPORT DIR_1 ... DIR_N --out DIR")
    for what in ("shards", "assignment", "grading_digest", "show_hidden"):
        if len({str(getattr(record, what)) for record in records}) > 1:
            seen = ", ".join(f"{clean_name(place)}: {clean(getattr(r, what), 80)}" for place, r in shards.values())
            raise KitError(
                f"the shards were not graded alike ({what}: {seen}): grade every shard with the same kit, options "
                "and number of shards"
            )
    missing = sorted(set(range(1, records[0].shards + 1)) - set(shards))
    if missing:
        raise KitError(
            f"shard {', '.join(f'{i}/{records[0].shards}' for i in missing)} missing: grade it "
            "(grade-all EXPORT --shard I/N --out DIR_I) and name its folder too"
        )
    return shards


def _shard_entries(intake: Intake, shards: dict[int, tuple[Path, ShardRecord]]) -> dict[str, tuple[Path, dict]]:
    """Each student's shard folder and entry, by key; refused where a shard did not grade the export as it is now."""
    n = next(iter(shards.values()))[1].shards
    entries: dict[str, tuple[Path, dict]] = {}
    for submission in intake.submissions:
        if submission.undecided:
            continue
        i = shard_of(submission.key, n)
        place, record = shards[i]
        entry = record.students.get(submission.key)
        rerun = f"run grade-all EXPORT --shard {i}/{n} --out {clean_name(place)} again (it grades only what changed)"
        if entry is None:
            raise KitError(f"{submission.key} is not among shard {i}/{n}'s students: {rerun}")
        if entry["submission_digest"] != submission_digest(submission.path):
            raise KitError(f"{submission.key}'s submission changed since shard {i}/{n} graded it: {rerun}")
        entries[submission.key] = (place, entry)
    for i, (place, record) in shards.items():
        gone = sorted(set(record.students) - set(entries))
        if gone:
            raise KitError(
                f"shard {i}/{n} ({clean_name(place)}) graded {', '.join(gone[:5])}, whom this export does not hold as "
                f"its students: merge the export the shards graded, or grade each shard of this one"
            )
    return entries


def _merged_since(out: Path, place: Path, key: str) -> bool:
    """Did an earlier merge copy the student's results after their shard last wrote them (copies keep the time)?"""
    try:
        return results_path(out, key).stat().st_mtime_ns >= results_path(place, key).stat().st_mtime_ns
    except OSError:
        return False


def _copy_student(place: Path, out: Path, key: str, kept: bool) -> None:
    """out/students/<key>/ as the shard left it (none where its run kept no results for the student); results.json
    last, as grade-all writes it: a merge stopped on the way (a full disk) copies the student again."""
    target = student_folder(out, key)
    if target.exists():
        trees.remove_tree(target)
    if kept:
        source = student_folder(place, key)
        shutil.copytree(
            source,
            target,
            symlinks=True,
            ignore=lambda folder, _names: [RESULTS] if Path(folder) == source else [],
            copy_function=shutil.copy2,
        )
        shutil.copy2(source / RESULTS, target / RESULTS)


def _grade_todo(
    todo: list[Submission],
    assignment: Assignment,
    config: GradingConfig,
    run: Run,
    jobs: int,
    progress: bool,
    private: tuple[Path, ...],
) -> tuple[dict[str, Grading], str]:
    """Each student of todo graded, by key, and why grading stopped ("" when it did not).

    private: the export and the output, closed to the students' uids (or the uid tier is refused)."""
    if not todo:
        return {}, ""
    try:
        return grade_students(todo, assignment, config, run, jobs, progress, private), ""
    except KitError as error:  # the grader cannot start here: nobody is graded, nobody gets a score
        stopped = clean(error, 2000)
        return {s.key: Grading(KIT_ERROR, stopped.splitlines()[0][:300]) for s in todo}, stopped


def _class_status(intake: Intake, unchanged: set[str], gradings: dict[str, Grading]) -> dict[str, tuple[str, str]]:
    """Everyone's (status, reason) in this run, in the intake's order: not graded, saying why, where the export
    does not tell whose files are whose; graded where nothing changed since an earlier run; else what grading
    them came to."""
    return {
        s.key: (NOT_GRADED, s.undecided)
        if s.undecided
        else (GRADED, "")
        if s.key in unchanged
        else (gradings[s.key].status, gradings[s.key].reason)
        for s in intake.submissions
    }


def _class_results(intake: Intake, earlier: dict[str, Results], gradings: dict[str, Grading]) -> dict[str, Results]:
    """Everyone's results, in the intake's order: those graded in this run as their workers wrote them, the
    others an earlier run's (a student graded again whose results were not written has none, nor has a student
    graded for no one)."""
    found = {}
    for submission in intake.submissions:
        if submission.undecided:  # an earlier run's results for that key are no one's now
            continue
        current = gradings[submission.key].results if submission.key in gradings else earlier.get(submission.key)
        if current is not None:
            found[submission.key] = current
    return found


def write_class(
    assignment: Assignment,
    intake: Intake,
    out: Path,
    results: dict[str, Results],
    status: dict,
    unchanged: set[str],
    written: answers.Written,
    *,
    show_hidden: bool = False,
    jobs: int = 1,
    lms_column_id: str = "",
    digests: dict[str, str] | None = None,
    policy: LatePolicy | None = None,
    lap: Callable[[str], None] = lambda step: None,
):
    """Everything written of the class from its results (step 3): (report.txt's text, the answers' files, the
    LMS's file, the late policy's lines). digests: each submission's (deliver/grade_all/regrade.py); policy: the late policy
    (--late-policy); lap(step) is called as each step ends."""
    # the late record reaches each results.json and feedback before any total is computed from them
    late = apply_late(policy, intake, results, out, points_possible(assignment), show_hidden)
    drawing = start_figure(assignment, out, results) if jobs > 1 else None  # report.png, on another core, from now
    hand = answers.write_answers(assignment, intake, out, written)
    lap("answers")
    rows = write_summary(intake, assignment, out, results, status, unchanged, written)
    lap("summary")
    # the notes of the instructor reach the feedback files before the LMS's feedback zip packs them
    insight = write_insight(
        assignment, out, intake, results, status, show_hidden=show_hidden, jobs=jobs, digests=digests, lap=lap
    )
    lms = write_lms_grades(intake, assignment, out, rows, lms_column_id)
    lap("lms grades")
    text = write_report(assignment, out, intake, results, status, insight, drawing)
    lap("report")
    return text, hand, lms, late


def _say_what_was_done(
    intake: Intake, out: Path, todo, status: dict, stopped: str, written, hand, lms, late: list[str]
) -> None:
    graded = sum(1 for s in todo if status[s.key][0] == GRADED)
    problems = {key: value for key, value in status.items() if value[0] == KIT_ERROR}
    undecided = [s for s in intake.submissions if s.undecided]
    unchanged = len(intake.submissions) - len(todo) - len(undecided)
    print(f"\n{graded} graded, {unchanged} unchanged since the last run, {len(problems)} errors of the kit")
    if undecided:
        print(
            f"{len(undecided)} not graded: the export does not tell whose files are whose; each has a row in "
            f"summary.csv saying why, and an empty grade in the LMS's file: {', '.join(s.key for s in undecided[:10])}"
            + (", ..." if len(undecided) > 10 else "")
        )
    if stopped:
        print(f"error: grading stopped: {stopped}", file=sys.stderr)
    for key, (what, reason) in list(problems.items())[:20]:
        print(f"  {key}: {what}: {reason}", file=sys.stderr)
    print(
        f"wrote {out / 'summary.csv'}, {out / 'report.txt'}, {out / 'report.png'}, {out / 'report.html'}, "
        f"{out / 'clusters.json'}, {out / 'similarity.csv'} and {out}/students/<student>/ (results.json, feedback.html, feedback.md)"
    )
    if hand:
        print(
            f"wrote {' and '.join(map(str, hand))}: the written answers, {points_text(written.top)} points, are graded by hand"
        )
    for line in late:
        print(line)
    if lms:
        print(f"for {intake.source}: {', '.join(str(path) for path in lms.paths)}")
        for note in lms.notes:
            print(f"  {note}")


def _say_what_the_shard_did(
    intake: Intake, out: Path, todo, status: dict, stopped: str, shard: tuple[int, int]
) -> None:
    graded = sum(1 for s in todo if status[s.key][0] == GRADED)
    problems = {key: value for key, value in status.items() if value[0] == KIT_ERROR}
    print(
        f"shard {shard[0]}/{shard[1]}: {len(intake.submissions)} students, {graded} graded, "
        f"{len(intake.submissions) - len(todo)} unchanged since the last run, {len(problems)} errors of the kit"
    )
    if stopped:
        print(f"error: grading stopped: {stopped}", file=sys.stderr)
    for key, (what, reason) in list(problems.items())[:20]:
        print(f"  {key}: {what}: {reason}", file=sys.stderr)
    print(
        f"wrote {out}/students/<student>/ and {out / SHARD_RECORD}; once every shard is done: "
        f"python -m autograder merge EXPORT DIR_1 ... DIR_{shard[1]} --out DIR"
    )


def _infer(intake: Intake) -> Assignment:
    for submission in intake.submissions[:10]:
        try:
            return infer_assignment(submission.path)
        except KitError:
            continue
    raise KitError("cannot tell which assignment these submissions are for; pass --assignment")


def _skipped_text(intake: Intake) -> str:
    if not intake.skipped:
        return ""
    return "; left out: " + "; ".join(f"{entry} ({why})" for entry, why in intake.skipped[:5])
