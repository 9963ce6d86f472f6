"""Grade submissions: the hidden graders, replayed against a student's sandboxed process.

A ``Grader`` holds, for one assignment and for as long as it lives:

* the plan of its hidden checks, collected once (grade/plan.py);
* the reference, whose outputs on the fixed-seed inputs are computed once;
* a rehearsal: the plan run once against the reference, which proves every check
  passes on it (a check that fails the reference is a bug of the kit, and the grader
  refuses to start) and records which probes each graded name asks for;
* a runtime: a warm zygote and the strongest isolation this host allows.

Grading a submission copies it (bounded, no links), starts a fresh sandboxed process
for it, sends each graded name's probes in one exchange, replays the checks against
the answers, carries errors forward (a caller of a name that fails its own checks is
checked again, in a fresh process, with that name standing in as the reference, and
earns the better of the two runs: grade/carry.py), and names known mistakes.
"""

from __future__ import annotations

import copy
import functools
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..assignments import Assignment
from ..config import GiB, GradingConfig
from ..errors import KitError
from ..public import trees, wire
from ..public.carry import carried_note
from ..public.loader import Entry, SubmissionError, definitions, find_entry, graded_calls
from ..public.probing import CALLS_ITS_CODE
from ..public.selfcheck import calls_failing
from ..public.selfcheck import judge as judge_visible
from ..results.model import CheckResult, Report, by_check
from ..results.scoring import summarize
from ..results.text import clean
from ..sandbox.host import arrangement, gpu, tiers
from ..sandbox.host.bounded_copy import copy_submission
from ..sandbox.host.client import Zygote
from ..sandbox.host.loading import NotLoaded
from ..sandbox.host.own_memory import growth_bounded
from ..sandbox.host.runtime import Isolation, Runtime
from ..sandbox.host.session import Call, Session, StudentError
from ..sandbox.host.uids import UidPool
from .behaviour import case_behaviour
from .carry import carry_forward
from .judge import Mismatch
from .mistakes import callees_first, catalogue, name_mistakes, prepare
from .plan import Check, collect, hidden_summary
from .reference import Reference, one_grading
from .reference_process import Forker, ForkerClient, ReferenceProcess
from .submission import demo_cell_digests
from .threads import single_threaded
from .unfinished import not_started

ON_CPU = (
    "{name} was graded on the CPU: on the GPU its process met a CUDA error that its own use of GPU memory did not "
    "cause (a neighbour may have taken the GPU's memory), and the CPU gives the same verdicts ({reason})"
)


class HostError(KitError):
    """The grader cannot grade on this host (the sandbox, CUDA, ...): no student may get a score from it."""


class GraderMemoryError(KitError):
    """Grading one submission took the grader past its own memory bound: that submission is not graded."""


class StudentView:
    """What a check sees of the student: run a probe for its graded name, get plain arrays."""

    def __init__(self, session, name: str, device: str, sizes: dict[str, int]):
        self._session = session
        self.name = name
        self.device = device
        self._sizes = sizes

    def run(self, probe_id: str, inputs: dict) -> dict:
        key = wire.digest(probe_id, inputs)
        try:
            return self._session.run(self.name, probe_id, inputs, self._sizes.get(key, 1 << 20), key)
        except StudentError as error:
            # The call that raised, so that a known mistake raising the same error can be named.
            error.evidence = {"probe_id": probe_id, "inputs": inputs, "error": str(error)}
            raise

    def error_of(self, probe_id: str, inputs: dict) -> str | None:
        """The probe's error on the student's code, or None when it answered."""
        try:
            self.run(probe_id, inputs)
            return None
        except StudentError as error:
            return str(error)


class ReferenceView:
    """The reference, seen the way a check sees a student: for the rehearsal and the nbgrader route."""

    def __init__(self, reference, device: str = "cpu", record: list | None = None):
        self._reference = reference
        self.device = device
        self._record = record

    def run(self, probe_id: str, inputs: dict) -> dict:
        if self._record is not None:
            self._record.append((probe_id, inputs))
        return self._reference.run(probe_id, inputs)

    def error_of(self, probe_id: str, inputs: dict) -> str | None:
        self.run(probe_id, inputs)
        return None


@dataclass
class Rehearsal:
    """What the plan asks of each graded name, learned by running it on the reference."""

    calls: dict[str, list[Call]] = field(default_factory=dict)
    sizes: dict[str, int] = field(default_factory=dict)  # probe call digest -> bytes of the reference's outputs


def run_check(check: Check, fixtures: dict) -> CheckResult:
    """One case of one check: passed, failed with feedback, or the grader's own error."""
    result = CheckResult(check.name, check.check, check.title, check.case, True, weight=check.weight, gate=check.gate)
    try:
        check.call(fixtures)
    except Mismatch as error:
        result.passed, result.message = False, clean(error.message)
        result.evidence = error.evidence or None
    except StudentError as error:
        result.passed, result.message = False, clean(str(error))
        result.process_failure = error.process_level
        result.evidence = None if error.process_level else error.evidence  # a dead process is no mistake's doing
    except NotLoaded:
        raise  # the submission could not be loaded before its code ran: no check is graded (results/outcome.py)
    except Exception as error:  # the grader itself broke
        result.passed, result.internal_error = False, True
        result.message = (
            f"the grader itself failed ({type(error).__name__}: {clean(error, 300)}); this is an error in the "
            f"grading kit, not in your code: tell your instructor"
        )
    return result


def rehearse(assignment: Assignment, plan: list[Check], visible: list[dict], reference) -> Rehearsal:
    """Run every check on the reference: each must pass; note the probes each name asks for.

    visible: the visible checks' probe calls, as visible_probes gives them."""
    rehearsal = Rehearsal()
    failures = []
    for check in plan + visible:
        record: list = []
        view = ReferenceView(reference, record=record)
        if isinstance(check, Check):
            result = run_check(check, {"student": view, "reference": reference, "submission": None})
            if not result.passed:
                failures.append(f"{check.test_id}: {result.message}")
        else:
            view.run(check["probe"], check["inputs"])
        calls = rehearsal.calls.setdefault(check.name if isinstance(check, Check) else check["name"], [])
        for probe_id, inputs in record:
            key = wire.digest(probe_id, inputs)
            if key not in rehearsal.sizes:
                outputs = reference.run(probe_id, inputs)
                rehearsal.sizes[key] = sum(getattr(v, "nbytes", 0) for v in outputs.values())
            if all(wire.digest(c.probe, c.inputs) != key for c in calls):
                calls.append(Call(probe_id, inputs, rehearsal.sizes[key]))
    if failures:
        shown = "\n".join(f"  - {failure}" for failure in failures[:10])
        raise KitError(
            f"the reference of {assignment.name} fails its own graders; fix the graders or the reference:\n{shown}"
        )
    return rehearsal


def visible_probes(cases) -> list[dict]:
    """The visible checks (an assignment's VISIBLE) as the grader runs them: each one's
    probe call on its visible inputs (author/visible.py stores the same checks, with their
    outputs, for the students' self-check bundle)."""
    return [
        {
            "name": case.name,
            "title": case.title,
            "probe": case.probe.probe_id,
            "keys": list(case.keys) if case.keys else None,
            "inputs": case.inputs,
            **({"note": case.note} if case.note else {}),
        }
        for case in cases
    ]


class Grader:
    """Grades submissions of one assignment, one after another."""

    def __init__(
        self,
        assignment: Assignment,
        config: GradingConfig | None = None,
        hierarchy=None,
        secret_paths=None,
        meanwhile: Callable[[], object] | None = None,
    ):
        """meanwhile: work of the caller's run while the zygote starts (this process waits for it then)."""
        config = config or GradingConfig()

        single_threaded()
        self.assignment = assignment
        self.config = config
        self.limits = config.limits()
        # 1) the device (--device cuda on a host without a GPU is refused here, at once), 2) the job cgroups,
        # arranged before the grader starts any child (arrangement.arrange), 3) the zygote, a fresh interpreter:
        # it starts while the reference and the plan load here.
        self.device, self.device_why = gpu.first_choice(config.device)
        arranged, found = (hierarchy, "") if hierarchy is not None else arrangement.arrange()
        zygote = Zygote(probes=(str(assignment.probes_path),), torch=assignment.framework == "torch")
        try:
            self.reference = Reference.of(assignment)
            self.plan = collect(assignment)
            self.visible = assignment.module("visible").VISIBLE
            self.rehearsal = self._rehearse()
            prepare(assignment, self.rehearsal.calls)  # the known mistakes' outputs, once per machine
            self.demo_cells = demo_cell_digests(assignment)
            self.mistake_messages = {m.id: m.message for m in catalogue(assignment)}
            self.hidden_summary = hidden_summary(self.plan)
            if meanwhile is not None:
                meanwhile()
            isolation = self._isolate(zygote, secret_paths or tiers.secrets(), arranged, found)
            isolation.owns_hierarchy = hierarchy is None  # the cgroups it arranged: given back when it closes
        except BaseException:
            zygote.close()
            if hierarchy is None and arranged is not None:
                arranged.close()
            raise
        watch = gpu.GpuWatch() if self.device.startswith("cuda") else None
        self.runtime = Runtime(zygote, isolation, gpu=watch)
        self._host_checked = False
        self.carry_forward_enabled = assignment.carry_forward
        self.reference_forker: ForkerClient | None = None  # a grade-all worker's: where its reference runs start

    def _isolate(self, zygote: Zygote, secret_paths, hierarchy, found: str) -> Isolation:
        """The strongest tier for the device; with --device auto, the CPU's where CUDA cannot be isolated here."""
        config = self.config
        try:
            return tiers.choose(
                zygote, config.isolation, config.allow_unsandboxed, self.device, secret_paths, hierarchy, found
            )
        except KitError as error:
            if config.device != "auto" or self.device == "cpu":
                raise
            self.device, self.device_why = (
                "cpu",
                f"--device auto graded on the CPU: CUDA cannot be isolated here: {error}",
            )
            return tiers.choose(
                zygote, config.isolation, config.allow_unsandboxed, "cpu", secret_paths, hierarchy, found
            )

    @property
    def isolation(self):
        return self.runtime.isolation

    # ---------------------------------------------------------------- start-up

    def _rehearse(self) -> Rehearsal:
        return rehearse(self.assignment, self.plan, visible_probes(self.visible), self.reference)

    @functools.cached_property
    def _visible_stored(self) -> dict[str, list[tuple[dict, dict]]]:
        """Per graded name, each visible check and what the student's self-check stores of it
        (the reference's outputs as JSON): made once, judged the way the notebook judges."""
        stored: dict[str, list[tuple[dict, dict]]] = {}
        for check in visible_probes(self.visible):
            expected = self.reference.run(check["probe"], check["inputs"])
            stored.setdefault(check["name"], []).append(
                (
                    check,
                    {
                        "name": check["name"],
                        "title": check["title"],
                        "probe": check["probe"],
                        "keys": check["keys"],
                        "mistakes": [],
                        "expected": _as_json(expected),
                        **({"note": check["note"]} if "note" in check else {}),
                    },
                )
            )
        return stored

    def check_host(self) -> None:
        """Grade the reference through the sandbox: anything short of full marks is the host's fault."""
        if self._host_checked:
            return
        report = self._grade(self.assignment.reference_path)
        lost = [c for c in report.hidden if c.score < c.max_score]
        if lost:
            shown = "\n".join(f"  - {c.name}: {c.title}: {clean(c.message, 300)}" for c in lost[:6])
            raise HostError(
                f"this host cannot grade {self.assignment.name} with device {self.device} in isolation "
                f"'{self.isolation.tier}': the reference itself loses points:\n{shown}"
            )
        self._host_checked = True

    # ---------------------------------------------------------------- grading

    def grade(self, submission: Path, label: str | None = None) -> Report:
        """Grade one submission; SubmissionError when it holds nothing gradable, HostError when this host fails,
        GraderMemoryError when grading it took this process past its own memory bound (sandbox/host/own_memory.py)."""
        extra = int(self.config.grader_memory * GiB)
        try:
            with growth_bounded(extra), one_grading(self.assignment):
                report = self._grade(Path(submission), label)
                if any(c.process_failure for c in report.checks):
                    self.check_host()  # was it the student's code, or this host?
        except MemoryError:
            raise GraderMemoryError(
                f"grading this submission took the grader past its own memory bound ({self.config.grader_memory:g} "
                f"GiB beyond its size, --grader-memory): it is not graded, and nothing of it is scored. A bound of the "
                f"kit missed what this submission made the grader compute: tell the kit's maintainers"
            ) from None
        return report

    def _grade(self, submission: Path, label: str | None = None) -> Report:
        started = time.monotonic()
        folder = self.runtime.submission_folder()
        try:
            session, entry, copy_notes = self.open_session(submission, folder)
            try:
                results, not_started = self._run(session, entry, submission)
            finally:
                session.close()
            report = summarize(
                self.assignment.points,
                results,
                assignment=self.assignment.name,
                submission=label or str(submission),
                entry=entry.path.relative_to(folder / "submission").as_posix(),
                notes=copy_notes + session.notes,
                isolation=self.isolation.as_dict(),
                device=self.device,
                device_why=self.device_why,
                mistake_messages=self.mistake_messages,
                hidden_summary=self.hidden_summary,
                not_started=not_started,
            )
        finally:
            trees.remove_tree(folder)
        report.seconds = round(time.monotonic() - started, 3)
        return report

    def open_session(self, submission: Path, folder: Path, device: str = "") -> tuple[Session, Entry, list[str]]:
        """Copy the submission into folder/submission (links never followed, sizes bounded),
        find what it defines, and open the student side for it: (session, entry, what the
        copy left out). The session's process starts when a probe first needs it."""
        copy, notes = copy_submission(submission, folder / "submission")
        entry = find_entry(copy, self.assignment.graded)
        session = Session(
            self.runtime,
            entry,
            folder,
            device or self.device,
            self.limits,
            self.assignment.graded,
            self.assignment.framework,
            self.demo_cells,
        )
        return session, entry, notes

    def _run(self, session: Session, entry, submission: Path) -> tuple[list[CheckResult], frozenset[str]]:
        """Every check's results (error carried forward included), and the graded names not started (their code
        still raises its stub: grade/unfinished.py)."""
        results: list[CheckResult] = []
        for name in self.assignment.graded:
            mine = self._checks_of(session, name, entry)
            if name in session.device_failures:
                mine = self._on_cpu(submission, name)
                session.notes.append(
                    ON_CPU.format(name=name, reason=session.device_failures[name] or "no reason given")
                )
            results += mine
        unstarted = self.not_started(results, session)
        # Code that failed to load (in its own time, memory or process) fails so in every process: a carried run
        # would load it again and spend the same budget on the same failure. A GPU's failure is not the code's.
        loaded = session.load_failure is None or bool(session.device_failures)
        carried = self.carry_forward(results, entry, submission, unstarted) if loaded else {}
        self._diagnose_all(results, entry, unstarted, carried)
        for result in results:
            if result.kind == "hidden":  # what grade-all groups students by (deliver/clusters.py)
                result.behaviour = case_behaviour(result, self.reference)
        return results, unstarted

    def _checks_of(self, session: Session, name: str, entry, visible: bool = True) -> list[CheckResult]:
        """The hidden checks of one graded name and (where ``visible``) its visible ones, on a session."""
        calls = self.rehearsal.calls.get(name, [])
        session.prefetch(name, calls)
        view = StudentView(session, name, session.device, self.rehearsal.sizes)
        fixtures = {"student": view, "reference": self.reference, "submission": entry}
        mine = [run_check(check, fixtures) for check in self.plan if check.name == name]
        return mine + (self._visible_results(name, view) if visible else [])

    def _on_cpu(self, submission: Path, name: str) -> list[CheckResult]:
        """One graded name's checks again, in a fresh process of the submission on the CPU: where the GPU
        failed it (a CUDA error its own GPU memory did not cause), the CPU's verdicts are the same."""
        folder = self.runtime.submission_folder()
        try:
            session, copied, _ = self.open_session(submission, folder, device="cpu")
            try:
                return self._checks_of(session, name, copied)
            finally:
                session.close()
        finally:
            trees.remove_tree(folder)

    def not_started(self, results: list[CheckResult], session: Session) -> frozenset[str]:
        """The graded names not started, told by what their code did in the session's process (grade/unfinished.py)."""

        def error_of(name: str) -> str | None:
            return StudentView(session, name, self.device, self.rehearsal.sizes).error_of(
                CALLS_ITS_CODE, {"name": name}
            )

        return not_started(results, error_of)

    # ---------------------------------------------------------------- error carried forward

    def carry_forward(
        self,
        results: list[CheckResult],
        entry: Entry,
        submission: Path,
        unstarted: frozenset[str],
        visible: bool = True,
    ) -> dict[str, tuple[str, ...]]:
        """Error carried forward (grade/carry.py's ``carry_forward``), each carried run in a fresh process of the
        submission (its visible checks too, where ``visible``): the names graded with the reference standing
        in, and for which names. unstarted: the names not started, never graded so."""
        if not self.carry_forward_enabled or all(r.passed for r in results if r.kind == "hidden"):
            return {}  # nothing fails: nothing to grade again (and the source need not be read)
        stopped: dict[str, tuple[tuple[str, ...], str]] = {}
        carried = carry_forward(
            self.assignment.points,
            self.assignment.graded,
            _read_unless_unreadable(graded_calls, entry, self.assignment.graded),
            unstarted,
            results,
            lambda name, callees: self._carried_run(submission, name, callees, visible, stopped),
        )
        for name, (callees, why) in stopped.items():  # the feedback says why, whichever run counts
            for failing in _first_failures([r for r in results if r.name == name and r.kind == "hidden"])[:1]:
                failing.message = f"{carried_note(name, callees, 'graded again')}, but {why}\n{failing.message}"
        return carried

    def _carried_run(
        self,
        submission: Path,
        name: str,
        callees: tuple[str, ...],
        visible: bool,
        stopped: dict[str, tuple[tuple[str, ...], str]],
    ) -> list[CheckResult]:
        """One graded name's checks in a fresh process of the submission, with ``callees`` standing in as the
        reference (from a process of its own: grade/reference_process.py), which stops answering when the run
        ends; why it stopped earlier, where it did, goes into ``stopped`` under the name. Where the GPU failed
        the run (not the student's doing), it runs again on the CPU."""
        results: list[CheckResult] = []
        limits = self.limits
        for device in dict.fromkeys((self.device, "cpu")):  # on the CPU again where the GPU failed it
            folder = self.runtime.submission_folder()
            server = ReferenceProcess(
                self.reference,
                callees,
                limits.memory_bytes,
                limits.timeout,
                limits.timeout * limits.wall_factor,
                self.reference_forker,
            )
            try:
                session, copied, _ = self.open_session(submission, folder, device)
                session.carry, session.server = dict(server.kinds), server
                try:
                    results = self._checks_of(session, name, copied, visible)
                    _raise_the_kits_failure(name, results)
                    if name not in session.device_failures:
                        return results
                finally:
                    session.close()
            finally:
                server.close()
                trees.remove_tree(folder)
                if server.stopped is not None:
                    stopped[name] = (callees, server.stopped)
        return results

    def _diagnose_all(
        self,
        results: list[CheckResult],
        entry: Entry,
        unstarted: frozenset[str],
        carried: dict[str, tuple[str, ...]] | None = None,
    ) -> None:
        """Name known mistakes once every name is graded, called names before their callers:
        what a name's own checks found decides which of its mistakes may explain its callers.

        A failing check of a name whose code (the student's) calls names failing their own
        checks says so first. A name graded with the reference standing in for its callees
        (``carried``) is judged on its own: its own mistakes only. A name not started
        (``unstarted``: its code still raises its stub) has no mistake named (an empty
        constructor is not a mistake of the catalogue)."""
        hidden = [r for r in results if r.kind == "hidden"]
        failed = {r.name for r in hidden if not r.passed}
        if not failed:
            return  # nothing to explain (and the source need not be read)
        calls = _read_unless_unreadable(graded_calls, entry, self.assignment.graded)
        carried = carried or {}
        code = _read_unless_unreadable(definitions, entry, self.assignment.graded)
        named: dict[str, set[str]] = {}
        for name in callees_first(self.assignment):
            mine = [r for r in hidden if r.name == name]
            called = frozenset(calls.get(name, set()))
            stood_in = frozenset(carried.get(name, ()))
            callees = tuple(n for n in self.assignment.graded if n in (called & failed) - stood_in)
            if name not in unstarted:
                name_mistakes(self.assignment, name, mine, frozenset(callees), named, called, stood_in, code)
            named[name] = {m for r in mine for m in r.mistakes}
            if callees and name not in carried:
                for failing in _first_failures([r for r in results if r.name == name]):
                    failing.message = calls_failing(name, list(callees)) + "\n" + failing.message

    def _visible_results(self, name: str, view: StudentView) -> list[CheckResult]:
        results = []
        for check, stored in self._visible_stored.get(name, []):
            try:
                got, error = view.run(check["probe"], check["inputs"]), None
            except StudentError as problem:
                got, error = {}, str(problem)
            outcome = judge_visible(stored, got, error, view.device)
            results.append(
                CheckResult(
                    name,
                    f"visible::{check['title']}",
                    check["title"],
                    "",
                    outcome.passed,
                    clean(outcome.message),
                    weight=0.0,
                    kind="visible",
                )
            )
        return results

    def forker(self, workers: int) -> Forker:
        """grade-all's Forker for ``workers`` workers (grade/reference_process.py): their carried runs' reference
        processes start there, forked by this grader's zygote."""
        return Forker(self.runtime.zygote, self.assignment.reference_path, self.assignment.name, workers)

    def for_worker(self) -> Grader:
        """A copy for another process (grade-all's workers): the same plan, reference and
        rehearsal, with a zygote, uids and scratch of its own. Made before the fork."""
        isolation = self.runtime.isolation
        pool = UidPool() if isolation.uid_pool is not None else None
        own = Isolation(
            isolation.tier, isolation.limits, isolation.why, isolation.hierarchy, pool, owns_hierarchy=False
        )
        worker = copy.copy(self)
        runtime = self.runtime
        worker.runtime = Runtime(runtime.zygote.clone(), own, gpu=runtime.gpu, kernels=runtime.kernels)
        return worker

    def close(self) -> None:
        if self.reference_forker is not None:
            self.reference_forker.close()
        self.runtime.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _raise_the_kits_failure(name: str, results: list[CheckResult]) -> None:
    """A carried run in which the grader itself broke (the reference's process gone, a bug) says nothing of the
    student: its lower score would be dropped for the first run's (carry.py keeps the run that earns more) and the
    kit's failure with it. KitError instead: the submission is not graded (KIT_ERROR), and a rerun grades it."""
    broken = next((r for r in results if r.internal_error), None)
    if broken is not None:
        raise KitError(f"grading {name} again with the reference standing in failed: {broken.message}")


def _read_unless_unreadable(read, entry, graded: tuple[str, ...]) -> dict:
    """What read(entry, graded) finds in the submission's source without running it (loader.graded_calls: the
    graded names each one calls; loader.definitions: each one's code, where a slip's line is looked for); nothing
    where the source cannot be read."""
    try:
        return read(entry, graded)
    except (SubmissionError, OSError):
        return {}


def _first_failures(results: list[CheckResult]) -> list[CheckResult]:
    """The first failing case of each check: the one whose message the feedback shows."""
    return [failing[0] for cases in by_check(results).values() if (failing := [c for c in cases if not c.passed])]


def _as_json(outputs: dict) -> dict:
    return {key: wire.array_to_json(value) for key, value in outputs.items()}
