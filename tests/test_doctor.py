"""Does doctor say what this host can do, and name the fix for each thing it cannot?"""

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from types import SimpleNamespace

import pytest

from autograder import KIT_ROOT, __version__, assignments, doctor
from autograder.config import GradingConfig
from autograder.errors import KitError
from autograder.grade.deciding import kit_digest
from autograder.public import trees


@pytest.fixture(scope="module")
def ours() -> dict[str, str]:
    return {name: kit_digest(a) for name, a in assignments.discover().items()}


def test_the_kernels_kit_is_this_checkout_even_through_a_link(tmp_path, ours):
    """Is a kernel kit at a path that links to this checkout said to be this one?"""
    (tmp_path / "kit").symlink_to(KIT_ROOT)
    line = doctor.kernel_kit_line("/venv/bin/python", {"root": str(tmp_path / "kit"), "version": "x", "grading": {}})
    assert line.endswith(": this checkout; the hidden cells will run")


def test_another_kit_that_grades_alike_is_accepted(ours):
    """Is a copy elsewhere that grades every assignment as this one said to be fine, with both versions?"""
    line = doctor.kernel_kit_line("python3", {"root": "/srv/kit", "version": "0.1.0", "grading": ours})
    assert line == (
        "the 'python3' kernel (python3) imports the kit at /srv/kit (version 0.1.0), "
        f"another copy that grades as this one (version {__version__}) does"
    )


def test_another_kit_that_grades_otherwise_names_the_assignments_and_the_fix(ours):
    """Does a copy that grades some assignments otherwise (or lacks them) get them named, sorted, with the venv to use?"""
    grading = {**ours, "mha": "0" * 16}
    del grading["attention_numpy"]
    line = doctor.kernel_kit_line("python3", {"root": "/srv/kit", "version": "0.1.0", "grading": grading})
    assert "which grades attention_numpy, mha otherwise: their hidden cells will refuse to score" in line
    assert line.endswith(f"(source {KIT_ROOT / '.venv' / 'bin' / 'activate'})")


OLD_KIT = {
    "autograder/__init__.py": "from pathlib import Path\nKIT_ROOT = Path('/srv/old')\n__version__ = '0.0.9'\n",
    "autograder/deliver/__init__.py": "",
    "autograder/deliver/nbgrader.py": "",
    "autograder/assignment.py": "def discover():\n    return {'mha': 'the old mha'}\n",
    "autograder/author/__init__.py": "",
    "autograder/author/notebook.py": "def kit_digest(assignment):\n    return 'digest of ' + assignment\n",
}


def test_the_kernel_probe_reads_a_kit_older_than_its_renames(tmp_path):
    """Does the probe still say what an older kit is (assignment.py, kit_digest in author/notebook.py)?"""
    for name, text in OLD_KIT.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    done = subprocess.run(
        [sys.executable, "-S", "-c", doctor.KERNEL_PROBE],  # -S: no site, so no editable install of this kit
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(tmp_path)},
    )
    assert done.returncode == 0, done.stderr
    probe = json.loads(done.stdout)
    assert probe == {"root": "/srv/old", "version": "0.0.9", "grading": {"mha": "digest of the old mha"}}


def fake_run(kernelspec: str | None, probe: subprocess.CompletedProcess | None = None):
    """subprocess.run as doctor sees it: `jupyter kernelspec list` prints kernelspec, the probe gives probe."""

    def run(command, **options):
        if "kernelspec" in command:
            return subprocess.CompletedProcess(command, 0, stdout=kernelspec or "", stderr="")
        return probe

    return run


SPEC = json.dumps({"kernelspecs": {"python3": {"spec": {"argv": ["/venv/bin/python", "-m", "ipykernel"]}}}})


@pytest.mark.parametrize(
    "kernelspec, probe, says",
    [
        ("", None, "no Jupyter 'python3' kernel found: install the kit's instructor extras"),
        (SPEC, subprocess.CompletedProcess([], 1, "", "ModuleNotFoundError"), "cannot import the kit: run nbgrader"),
        (SPEC, subprocess.CompletedProcess([], 0, "not json\n", ""), "imports a kit that cannot say which it is"),
    ],
    ids=["no kernel", "no kit", "an unreadable kit"],
)
def test_a_kernel_that_cannot_grade_is_named_with_the_fix(monkeypatch, kernelspec, probe, says):
    """Is a missing kernel, a kernel without the kit, or one whose kit cannot say what it is each told apart?"""
    monkeypatch.setattr(doctor.subprocess, "run", fake_run(kernelspec, probe))
    line = doctor._nbgrader_kernel()
    assert says in line
    if kernelspec:
        assert "(/venv/bin/python)" in line


class Tiers:
    """tiers.choose stood in for: CUDA isolated in the hardened tier, or refused with a reason."""

    def __init__(self, refusal: str = ""):
        self.refusal, self.devices = refusal, []

    def choose(self, zygote, isolation, allow, device, secrets, hierarchy, found):
        self.devices.append(device)
        if self.refusal:
            raise KitError(self.refusal)
        return SimpleNamespace(tier="hardened", limits="cgroup v2 (memory, pids)", close=lambda: None)


@pytest.mark.parametrize("device", ["auto", "cuda"])
def test_the_gpu_line_says_whether_cuda_can_be_isolated(monkeypatch, device):
    """Does doctor's GPU line say there is no GPU, or that CUDA is isolated (in which tier), or why it cannot be and
    what then happens (auto: the CPU; cuda: refused, a problem)?"""
    config = GradingConfig(device=device)
    monkeypatch.setattr(doctor.gpu, "missing", lambda: "no NVIDIA GPU here")
    words, problem = doctor._gpu(None, config, None, "")
    assert words.startswith("no NVIDIA GPU here; grading runs on the CPU") and problem == (device == "cuda")
    monkeypatch.setattr(doctor.gpu, "missing", lambda: None)
    isolated = Tiers()
    monkeypatch.setattr(doctor.tiers, "choose", isolated.choose)
    assert doctor._gpu(None, config, None, "") == (
        "CUDA is isolated here in the hardened tier (cgroup v2 (memory, pids))",
        0,
    )
    assert isolated.devices == ["cuda"]
    monkeypatch.setattr(doctor.tiers, "choose", Tiers("no isolation tier works on this host").choose)
    words, problem = doctor._gpu(None, config, None, "")
    assert words.startswith("a GPU is here, but CUDA cannot be isolated: no isolation tier works on this host")
    assert ("--device cuda is refused" if device == "cuda" else "--device auto grades on the CPU") in words
    assert problem == (device == "cuda")


def test_a_copied_reference_names_its_checkout_to_close():
    """Is a copy at <checkout>/solutions/<a>/reference.py closed by its checkout, any other copy by itself?"""
    assert doctor._what_to_close(Path("/srv/old-kit/solutions/mha/reference.py")) == Path("/srv/old-kit")
    assert doctor._what_to_close(Path("/srv/backup/reference.py")) == Path("/srv/backup/reference.py")
    assert doctor._what_to_close(Path("/srv/solutions/mha/mha.py")) == Path("/srv/solutions/mha/mha.py")


@pytest.fixture
def open_folder():
    """A folder every user can reach (pytest's own are private)."""
    folder = Path(tempfile.mkdtemp(prefix="kit-doctor-"))
    folder.chmod(0o755)
    yield folder
    trees.remove_tree(folder)


def test_a_file_is_readable_by_others_only_through_open_folders(open_folder):
    """Is a world-readable file inside a folder others cannot enter, or a file closed to others, said to be safe?"""
    folder = open_folder / "inner"
    folder.mkdir(mode=0o755)
    folder.chmod(0o755)
    path = folder / "reference.py"
    path.write_text("x")
    path.chmod(0o644)
    assert doctor._readable_by_others(path)
    folder.chmod(0o700)
    assert not doctor._readable_by_others(path)
    folder.chmod(0o755)
    path.chmod(0o600)
    assert not doctor._readable_by_others(path)
    assert not doctor._readable_by_others(folder / "missing.py")


def test_the_warning_groups_copies_by_what_to_close_with_the_command(monkeypatch):
    """Are copies listed by the checkout to close, each with a quoted chmod, and none found said with where it looked?"""
    checkout = Path("/srv/old kit")
    found = [
        (checkout / "solutions" / "mha" / "reference.py", checkout),
        (checkout / "solutions" / "encoder_block" / "reference.py", checkout),
        (Path("/tmp/reference.py"), Path("/tmp/reference.py")),
    ]
    monkeypatch.setattr(doctor, "readable_copies", lambda places: (found, False))
    text = doctor._readable_copies_text()
    assert text.startswith("\nWARNING: copies of the solutions other users can read")
    assert "stopped there: not all of it" in text
    assert (
        "  /srv/old kit (solutions/mha/reference.py, solutions/encoder_block/reference.py): "
        "chmod -R go-rwx '/srv/old kit'" in text
    )
    assert "  /tmp/reference.py: chmod -R go-rwx /tmp/reference.py" in text
    monkeypatch.setattr(doctor, "readable_copies", lambda places: ([], True))
    assert doctor._readable_copies_text().startswith(
        "\nCopies of the solutions other users can read: none found (searched "
    )


# ------------------------------------------------------------------ the whole report, its parts stood in for


class FakeIsolation:
    limits = "memory and processes bounded"
    why = "not hardened: no cgroup here"

    def describe(self) -> str:
        return "uid (a user of its own)"

    def close(self) -> None:
        pass


class FakeZygote:
    def __init__(self, torch: bool):
        pass

    def close(self) -> None:
        pass


class FakeGrader:
    """A grader whose reference gets full marks, except for the assignments named in `failing`."""

    failing: tuple[str, ...] = ()
    graded: list[str] = []

    device = "cpu"

    def __init__(self, assignment, config):
        self.assignment, self.device_why = assignment, ""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def check_host(self) -> None:
        FakeGrader.graded.append(self.assignment.name)
        if self.assignment.name in self.failing:
            raise KitError("the reference got 3 of 40 points")


@pytest.fixture
def host(monkeypatch):
    """doctor with its tiers, zygote, grader, GPU, kernel and search of copies stood in for: uid works, hardened not."""
    from autograder.sandbox.host import tiers

    monkeypatch.setattr(doctor, "Zygote", FakeZygote)
    monkeypatch.setattr(doctor, "Grader", FakeGrader)
    monkeypatch.setattr(FakeGrader, "graded", [])
    monkeypatch.setattr(doctor.arrangement, "arrange", lambda: (None, "no writable cgroup hierarchy here"))
    monkeypatch.setattr(
        tiers, "attempt", lambda zygote, tier, *rest: (FakeIsolation(), "") if tier == "uid" else (None, f"{tier}: no")
    )
    monkeypatch.setattr(tiers, "choose", lambda zygote, isolation, allow, device, *rest: FakeIsolation())
    monkeypatch.setattr(doctor, "_readable_copies_text", lambda: "\nCopies: none")
    monkeypatch.setattr(doctor, "_gpu", lambda *arguments: ("none", 0))
    monkeypatch.setattr(doctor, "_nbgrader_kernel", lambda: "this checkout")
    return tiers


def test_a_host_where_every_reference_grades_is_ready(host, capsys):
    """Does doctor list each tier, the one chosen and why, grade every reference, and say ready (exit 0)?"""
    assert doctor.doctor(GradingConfig()) == 0
    out = capsys.readouterr().out
    assert "  hardened  does not work here: hardened: no" in out and "  uid       works: memory and processes" in out
    assert "Job cgroups: none: no writable cgroup hierarchy here" in out
    assert "Grading here uses: uid (a user of its own)\n  (not hardened: no cgroup here)" in out
    assert FakeGrader.graded == assignments.names()
    assert out.rstrip().endswith("ready to grade")


def test_a_reference_short_of_full_marks_means_not_ready(host, capsys, monkeypatch):
    """Does one assignment whose reference cannot be graded here make doctor say so, go on, and exit 1?"""
    monkeypatch.setattr(FakeGrader, "failing", ("mha",))
    assert doctor.doctor(GradingConfig()) == 1
    out = capsys.readouterr().out
    assert "mha: cannot grade here: the reference got 3 of 40 points" in out
    assert FakeGrader.graded == assignments.names() and out.rstrip().endswith("not ready: see above")


def test_a_host_with_no_tier_is_refused_before_grading(host, capsys, monkeypatch):
    """Where no isolation tier works (and unsandboxed is not allowed), does doctor say why and exit 1 without grading?"""

    def refuse(zygote, isolation, allow, device, *rest):
        raise KitError("no isolation tier works here: pass --allow-unsandboxed")

    monkeypatch.setattr(host, "choose", refuse)
    assert doctor.doctor(GradingConfig()) == 1
    out = capsys.readouterr().out
    assert "Grading here: refused. no isolation tier works here: pass --allow-unsandboxed" in out
    assert FakeGrader.graded == []


REFERENCE = KIT_ROOT / "solutions" / "mha" / "reference.py"


def test_doctor_names_a_world_readable_checkout_and_the_fix(open_folder):
    """A kit checkout readable by all, a stray copy in a private folder, an edited copy: is only the first named?"""
    tmp_path = open_folder
    checkout = tmp_path / "old-kit"
    (checkout / "solutions" / "mha").mkdir(parents=True)
    (checkout / "solutions" / "mha" / "reference.py").write_bytes(REFERENCE.read_bytes())
    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    (private / "reference.py").write_bytes(REFERENCE.read_bytes())
    os.chmod(private, 0o700)
    edited = tmp_path / "mha.py"
    edited.write_bytes(REFERENCE.read_bytes().replace(b"def tokenize", b"def tokenise"))
    for path in (checkout, checkout / "solutions", checkout / "solutions" / "mha"):
        os.chmod(path, 0o755)
    found, complete = doctor.readable_copies([tmp_path])
    assert complete and found == [(checkout / "solutions" / "mha" / "reference.py", checkout)]


def test_doctor_skips_the_kit_it_runs_from(open_folder, monkeypatch):
    """Of two readable checkouts, is only the other one named (the kit's own is not a copy)?"""
    for name in ("kit", "other"):
        (open_folder / name / "solutions" / "mha").mkdir(parents=True, mode=0o755)
        (open_folder / name / "solutions" / "mha" / "reference.py").write_bytes(REFERENCE.read_bytes())
    monkeypatch.setattr(doctor, "KIT_ROOT", open_folder / "kit")
    found, _ = doctor.readable_copies([open_folder])
    assert [target for _, target in found] == [open_folder / "other"]


def test_doctor_stops_at_its_time_limit(tmp_path):
    """With no time left, does the search stop and say it did not search everything?"""
    (tmp_path / "a").mkdir()
    assert doctor.readable_copies([tmp_path], seconds=-1) == ([], False)


def test_on_the_gpu_doctor_compares_the_verdicts_with_the_cpus(host, capsys, monkeypatch):
    """Where the graders grade on the GPU: does doctor compare every assignment's verdicts there with the CPU's, print
    each disagreement, and say not ready (exit 1); show what the fast kernels (never graded with) would change without
    counting it; and compare nothing on the CPU?"""
    compared = []
    fast = "reference: FFN 3.0 on cpu, exact kernels, 0.7 on cuda, fast kernels"

    def compare(assignment, config, jobs):
        compared.append((assignment.name, jobs))
        if assignment.name == "mha":
            return doctor.devices.Comparison(["mistake no_scale: attention 0.0 on cpu, exact kernels, 2.0 on cuda, "
                                              "exact kernels"], [], 90)  # fmt: skip
        return doctor.devices.Comparison([], [fast], 40)

    monkeypatch.setattr(doctor.devices, "compare", compare)
    assert doctor.doctor(GradingConfig()) == 0 and compared == []
    monkeypatch.setattr(FakeGrader, "device", "cuda")
    assert doctor.doctor(GradingConfig(device="cuda"), jobs=3) == 1
    out = capsys.readouterr().out
    assert compared == [(name, 3) for name in assignments.names()]
    assert "  mha: 90 samples in 3 settings" in out and "1 disagreement(s):\n    mistake no_scale: attention 0.0" in out
    assert "the same points on the GPU as on the CPU\n    (with TF32 and fused attention kernels" in out
    assert f"would differ, e.g. {fast})" in out and out.rstrip().endswith("not ready: see above")
