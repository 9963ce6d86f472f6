"""Are the reference's outputs computed once, kept on disk for the grading user only, and read back as they were?"""

import os
import stat
import threading

import numpy as np
import pytest

from autograder.assignments import discover
from autograder.grade import reference
from autograder.grade.reference import CACHE_MODE, KEEP, OutputStore, Reference, computing, exec_source, store_of
from autograder.public import probing, wire

NUMPY = discover()["attention_numpy"]
SOFTMAX = NUMPY.module("probes").softmax.probe_id
X = {"x": np.array([[1.0, 2.0, 3.0]]), "axis": -1}


def test_old_output_stores_are_pruned(tmp_path):
    """Does saving a store keep the newest few of its assignment's stores and leave other assignments' alone?"""
    for i in range(KEEP + 3):
        for name in (f"mha-{i:020d}", f"mha_two-{i:020d}"):
            (tmp_path / f"{name}.npz").write_bytes(b"old")
            (tmp_path / f"{name}.json").write_text("{}")
            os.utime(tmp_path / f"{name}.npz", (i, i))
    store = OutputStore(tmp_path / "mha-newest.npz")
    store.put("reference", "key", ({"out": np.zeros(2)}, None))
    store.save(complete=True)
    kept = sorted(p.name for p in tmp_path.glob("mha-*.npz"))
    assert len(kept) == KEEP and "mha-newest.npz" in kept and f"mha-{KEEP + 2:020d}.npz" in kept
    assert len(list(tmp_path.glob("mha-*.json"))) == KEEP
    assert len(list(tmp_path.glob("mha_two-*.npz"))) == KEEP + 3


def test_a_saved_store_is_read_back_with_devices_and_errors(tmp_path):
    """Does a store saved and opened again give each output's values, dtype and device, and each error, and say
    whether it is complete?"""
    store = OutputStore(tmp_path / "mha-abc.npz")
    out = wire.with_device(np.arange(3, dtype=np.float32), "cuda")
    store.put("reference", "k1", ({"out": out, "plain": np.array(["a"])}, None))
    store.put("mistake_x", "k1", ({}, "ValueError: no"))
    store.save(complete=True)
    again = OutputStore(tmp_path / "mha-abc.npz")
    assert again.complete
    outputs, error = again.get("reference", "k1")
    assert error is None and outputs["out"].dtype == np.float32 and wire.device_of(outputs["out"]) == "cuda"
    assert outputs["out"].tolist() == [0, 1, 2] and outputs["plain"].tolist() == ["a"]
    assert again.get("mistake_x", "k1") == ({}, "ValueError: no") and again.get("reference", "k2") is None
    for suffix in (".npz", ".json"):
        assert stat.S_IMODE(os.stat(tmp_path / f"mha-abc{suffix}").st_mode) == CACHE_MODE


def test_an_index_read_beside_another_graders_arrays_finds_its_own_outputs_or_none(tmp_path):
    """Two graders that loaded one store each add another call's outputs and save; a reader that gets the first's
    index beside the second's arrays (their renames interleaved): does each entry give its own values, or nothing?"""
    path = tmp_path / "mha-abc.npz"
    shared = OutputStore(path)
    shared.put("reference", "old", ({"out": np.array([1.0])}, None))
    shared.save(complete=False)
    first, second = OutputStore(path), OutputStore(path)
    first.put("reference", "k1", ({"out": np.array([2.0])}, None))
    second.put("reference", "k2", ({"out": np.array([3.0])}, None))
    first.save(complete=False)
    index = path.with_suffix(".json").read_text()
    second.save(complete=False)
    path.with_suffix(".json").write_text(index)  # the first's index, the second's arrays
    mixed = OutputStore(path)
    assert mixed.get("reference", "old")[0]["out"].tolist() == [1.0]
    assert mixed.get("reference", "k1") is None  # not the second's k2 under k1's place


def test_a_damaged_or_unwritable_store_is_no_error(tmp_path):
    """Is a store whose index is broken, or whose arrays are gone, read as empty, and one that cannot be written
    left unwritten, grading going on?"""
    (tmp_path / "mha-abc.json").write_text("{not json")
    assert OutputStore(tmp_path / "mha-abc.npz").index == {}
    store = OutputStore(tmp_path / "mha-abc.npz")
    store.put("reference", "k", ({"out": np.zeros(1)}, None))
    store.save(complete=False)
    (tmp_path / "mha-abc.npz").unlink()
    assert OutputStore(tmp_path / "mha-abc.npz").get("reference", "k") is None
    (tmp_path / "a file").write_text("")
    blocked = OutputStore(tmp_path / "a file" / "mha-abc.npz")
    blocked.put("reference", "k", ({"out": np.zeros(1)}, None))
    blocked.save(complete=True)
    assert not blocked.complete and blocked.get("reference", "k") is not None  # kept in memory


def test_a_store_with_nothing_new_is_not_written_again(tmp_path):
    """Is saving a store that learned nothing and stays as complete as it was no write at all?"""
    store = OutputStore(tmp_path / "mha-abc.npz")
    store.save(complete=False)
    assert not (tmp_path / "mha-abc.npz").exists()


def test_a_grader_that_waits_for_another_computing_the_store_reads_what_it_saved(tmp_path):
    """Two graders of one kit with no store yet: while the first computes it, does the second wait, and then find the
    first's outputs and the store complete, keeping what it computed itself meanwhile?"""
    path = tmp_path / "mha-abc.npz"
    first, second = OutputStore(path), OutputStore(path)
    second.put("reference", "own", ({"out": np.array([5.0])}, None))  # computed before it asked for the store
    seen = []

    def waits():
        with computing(second):
            seen.append((second.complete, second.get("reference", "k"), second.get("reference", "own")))

    with computing(first):
        waiter = threading.Thread(target=waits)
        waiter.start()  # it asks for the store while the first holds it
        first.put("reference", "k", ({"out": np.array([1.0])}, None))
        first.save(complete=True)
        seen.append("first saved")
    waiter.join(timeout=60)
    assert seen[0] == "first saved" and len(seen) == 2
    complete, theirs, own = seen[1]
    assert complete and theirs[0]["out"].tolist() == [1.0] and own[0]["out"].tolist() == [5.0]
    assert stat.S_IMODE(os.stat(path.with_suffix(".lock")).st_mode) == CACHE_MODE


def test_a_grader_computes_no_mistake_another_saved_while_it_waited(monkeypatch, tmp_path):
    """Does prepare(), finding the store complete once another grader's computing ends, run no mistake at all?"""
    from autograder.grade import mistakes

    monkeypatch.setattr(reference, "CACHE", tmp_path)
    store = store_of(NUMPY)
    assert store.path.parent == tmp_path and not store.complete
    done = []
    with computing(OutputStore(store.path)):  # another grader, computing
        waiter = threading.Thread(target=lambda: done.append(mistakes.prepare(NUMPY, {})))
        monkeypatch.setattr(mistakes, "with_mistake", lambda *a: pytest.fail("a mistake was run again"))
        waiter.start()
        other = OutputStore(store.path)
        other.put("reference", "k", ({"out": np.zeros(1)}, None))
        other.save(complete=True)
    waiter.join(timeout=60)
    assert done == [None] and store.complete


def test_a_file_system_without_locks_leaves_each_grader_to_compute_its_own(monkeypatch, tmp_path):
    """Where flock fails (NFS without its lock daemon: ENOLCK), does prepare() compute and save the store as without
    a lock, where the error stopped the grader?"""
    import errno
    import fcntl

    def no_locks(fd, operation):
        raise OSError(errno.ENOLCK, "No locks available")

    monkeypatch.setattr(fcntl, "flock", no_locks)
    monkeypatch.setattr(reference, "CACHE", tmp_path)
    from autograder.grade import mistakes

    assert mistakes.prepare(NUMPY, {}) is None
    assert store_of(NUMPY).complete


def test_the_reference_runs_each_probe_call_once_across_graders(tmp_path):
    """Is a probe call run once, kept in the store, and found there by a second grader (which computes nothing)?"""
    namespace = exec_source(NUMPY.reference_path.read_text(), str(NUMPY.reference_path), "reference_numpy")
    store = OutputStore(tmp_path / "attention_numpy-abc.npz")
    first = Reference(namespace, store=store)
    outputs = first.run(SOFTMAX, X)
    first.run(SOFTMAX, X)
    assert first.computed == 1 and outputs["out"].sum() == pytest.approx(1.0, abs=1e-15)  # float64 rounding
    store.save(complete=True)
    second = Reference(lambda: pytest.fail("the namespace is never loaded"), store=OutputStore(store.path))
    assert np.array_equal(second.run(SOFTMAX, X)["out"], outputs["out"]) and second.computed == 0


def test_an_implementation_that_fails_a_probe_says_which(tmp_path):
    """Does outputs() give a failing implementation's error, and run() raise naming the implementation and probe?"""

    def softmax(x, axis=-1):
        raise ValueError("broken on purpose")

    mistake = Reference({"softmax": softmax}, label="mistake_overflow")
    assert mistake.outputs(SOFTMAX, X)[1].startswith("your code raised ValueError: broken on purpose")
    with pytest.raises(RuntimeError, match=f"the mistake_overflow failed probe {SOFTMAX}: your code raised"):
        mistake.run(SOFTMAX, X)


def test_a_reference_source_runs_in_a_module_of_its_own():
    """Does exec_source give the source's names, with its file name, apart from any earlier run?"""
    first = exec_source("counter = []\ndef add():\n    counter.append(1)\n", "/course/reference.py", "reference_x")
    first["add"]()
    second = exec_source("counter = []\n", "/course/reference.py", "reference_x")
    assert first["counter"] == [1] and second["counter"] == [] and first["__file__"] == "/course/reference.py"
    assert first["__name__"] == "reference_x"


def test_one_store_per_assignment_state_in_a_process():
    """Do two graders of one assignment in one process share one store, named under build/cache?"""
    assert store_of(NUMPY) is store_of(NUMPY)
    assert store_of(NUMPY).path.parent == reference.CACHE and store_of(NUMPY).path.name.startswith("attention_numpy-")


def test_a_stores_notes_are_kept_beside_its_outputs(tmp_path):
    """Does a note put in a store come back once the store is saved and opened again, and does a new note alone
    make the store be written?"""
    store = OutputStore(tmp_path / "mha-abc.npz")
    store.save(complete=True)
    store.put_note("signature softmax_dim_3 attention", {"test_x::test_y[a]": "d1"})
    store.save(complete=True)
    again = OutputStore(tmp_path / "mha-abc.npz")
    assert again.note("signature softmax_dim_3 attention") == {"test_x::test_y[a]": "d1"}
    assert again.note("signature other attention") is None


def test_an_error_in_a_reference_source_quotes_its_line():
    """Does a traceback through code run by exec_source quote the line that raised, as a student's file does?"""
    namespace = exec_source("def f(x):\n    return x.softmax(dim=3)\n", "/course/reference.py [slip]", "reference_y")
    try:
        namespace["f"](None)
    except AttributeError as error:
        assert "x.softmax(dim=3)" in probing.describe_exception(error)
    else:
        raise AssertionError("the slip did not raise")
