"""The instructor's reference (and its known mistakes), run in the trusted grader with the same probes as students.

Their outputs on the graders' fixed-seed inputs never change while the reference, the
mistakes, the probes, the graders' inputs, the kit's engine and the libraries stay the
same, so they are computed once and kept on disk, in one store per assignment
(build/cache/<assignment>-<digest>.npz: arrays, and a JSON index; no pickle). A grader
that finds them there runs neither the reference nor a mistake, and does not import
PyTorch to judge a submission or to name its mistake. Graders that find none at once
(a class's shards on one machine, the course's commands started together) compute it
one at a time (``computing``): the others wait, and read what the first saved.
"""

from __future__ import annotations

import hashlib
import json
import linecache
import os
import platform
import sys
import types
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cache
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import numpy as np

from .. import KIT_ROOT
from ..assignments import Assignment
from ..public import wire
from ..public.probing import Implementation, run_probe
from ..results.atomic import atomic_file, write_atomically
from .deciding import deciding_digest, deciding_files
from .threads import single_threaded

CACHE = KIT_ROOT / "build" / "cache"
CACHE_MODE = 0o600  # the reference's outputs: the grading user's only, never a student uid's
Outputs = tuple[dict[str, np.ndarray], "str | None"]


def exec_source(source: str, filename: str, module_name: str) -> dict:
    """Run a reference's source in a fresh module and return its namespace. Its lines are known to
    tracebacks (linecache), so that an error says which line raised it, as a student's does."""
    linecache.cache[filename] = (len(source), None, source.splitlines(keepends=True), filename)
    module = types.ModuleType(module_name)
    module.__file__ = filename
    exec(compile(source, filename, "exec"), module.__dict__)
    return module.__dict__


class OutputStore:
    """Probe outputs by implementation (the reference, or a mistake's id) and call, kept on disk."""

    def __init__(self, path: Path):
        self.path = path
        self.index: dict[str, list] = {}  # "<label> <call digest>" -> [{output: [array name, device]}, error]
        self.complete = False  # every mistake's outputs on the calls it can change are in
        self.new: dict[str, Outputs] = {}
        self.notes: dict[str, object] = {}  # small JSON facts derived from the outputs (a mistake's failing cases)
        self._notes_changed = False
        self._arrays = None
        self._opened_by = None
        try:
            stored = json.loads(path.with_suffix(".json").read_text())
            self.index, self.complete = stored["index"], stored["complete"]
            self.notes = dict(stored.get("notes", {}))
        except (OSError, ValueError, KeyError, TypeError):
            pass

    def get(self, label: str, key: str) -> Outputs | None:
        name = f"{label} {key}"
        if name in self.new:
            return self.new[name]
        entry = self.index.get(name)
        if entry is None:
            return None
        keys, error = entry
        arrays = self._npz()
        if arrays is None:
            return None
        try:
            return {output: wire.with_device(arrays[array], device) for output, (array, device) in keys.items()}, error
        except (KeyError, ValueError, OSError):
            return None

    def _npz(self):
        """The arrays' file, opened once in each process (forked workers must not share its position)."""
        if self._opened_by != os.getpid():
            try:
                self._arrays = np.load(self.path, allow_pickle=False)
            except (OSError, ValueError):
                self._arrays = None
            self._opened_by = os.getpid()
        return self._arrays

    def put(self, label: str, key: str, value: Outputs) -> None:
        self.new[f"{label} {key}"] = value

    def refresh(self) -> None:
        """Read again what another grader saved meanwhile (its outputs, its notes, whether the store is complete),
        keeping what this one computed and has not saved."""
        try:
            stored = json.loads(self.path.with_suffix(".json").read_text())
            index, complete, notes = stored["index"], stored["complete"], dict(stored.get("notes", {}))
        except (OSError, ValueError, KeyError, TypeError):
            return
        self.index, self.complete, self._opened_by = index, complete, None
        self.notes = {**notes, **self.notes}

    def note(self, key: str):
        """A fact kept beside the outputs (None: not kept yet)."""
        return self.notes.get(key)

    def put_note(self, key: str, value) -> None:
        self.notes[key] = value
        self._notes_changed = True

    def noted(self, key: str, compute: Callable[..., dict | None], *args) -> dict:
        """The fact kept under key (a JSON object), or compute(*args)'s ({} for None), kept from now on as the next
        process reads it back."""
        kept = self.notes.get(key)
        if not isinstance(kept, dict):
            kept = json.loads(json.dumps(compute(*args) or {}))
            self.put_note(key, kept)
        return kept

    def save(self, complete: bool) -> None:
        """Write every stored output, old and new, to a new file, then rename it into place.

        Each array is named by the call and output it holds, not by its place: two graders that
        save at once rename their arrays and then their index into place, and an index read beside
        the other's arrays finds each of its entries there or not at all (computed again), never
        another call's output."""
        if not self.new and not self._notes_changed and complete == self.complete:
            return
        arrays: dict[str, np.ndarray] = {}
        index: dict[str, list] = {}
        for name in list(self.index) + list(self.new):
            found = self.get(*name.split(" ", 1))
            if found is None:
                continue
            outputs, error = found
            keys = {}
            for output, value in outputs.items():
                array = "a" + hashlib.sha256(f"{name}\0{output}".encode()).hexdigest()[:32]
                arrays[array] = np.asarray(value)
                keys[output] = [array, wire.device_of(value)]
            index[name] = [keys, error]
        try:
            with atomic_file(self.path, CACHE_MODE) as file:
                np.savez(file, **arrays)  # type: ignore[arg-type]  # names are a<hex>: never savez's allow_pickle
            write_atomically(
                self.path.with_suffix(".json"),
                json.dumps({"index": index, "complete": complete, "notes": self.notes}),
                CACHE_MODE,
            )
        except OSError:
            return  # a grader that cannot write its cache grades all the same
        self.index, self.new, self.complete, self._opened_by = index, {}, complete, None
        self._notes_changed = False
        prune(self.path)


@contextmanager
def computing(store: OutputStore) -> Iterator[None]:
    """Within, this grader alone computes the store (a lock beside it, held until the block ends); a grader that
    waited for another finds, on entry, what that one saved (OutputStore.refresh). Where there can be no lock (below),
    each grader computes its own, as without a cache."""
    handle = _held_lock(store.path.with_suffix(".lock"))
    try:
        if handle is not None:
            store.refresh()
        yield
    finally:
        if handle is not None:
            os.close(handle)  # the lock goes with it, as it does when the process ends


def _held_lock(path: Path) -> int | None:
    """The lock file, opened and locked once no other grader holds it; None where it cannot be: a folder not writable,
    a file system without locks (NFS without its lock daemon says ENOLCK), a system without fcntl."""
    try:
        import fcntl  # here: a POSIX module, absent elsewhere

        path.parent.mkdir(parents=True, exist_ok=True)
        handle = os.open(path, os.O_RDWR | os.O_CREAT, CACHE_MODE)
    except (ImportError, OSError):
        return None
    try:
        fcntl.flock(handle, fcntl.LOCK_EX)
    except BaseException as error:
        os.close(handle)
        if isinstance(error, OSError):
            return None
        raise
    return handle


KEEP = 4  # stores kept per assignment: a few Pythons or kit versions in use on one machine each keep theirs


def prune(path: Path) -> None:
    """Remove the assignment's older stores beyond the KEEP newest (each is a few MB, and
    every change of the reference, graders, probes or libraries makes a new one). A grader
    whose store goes computes its outputs again; one that prunes at the same time may
    find a store gone, and leaves the rest for the next save."""
    assignment = path.name.rsplit("-", 1)[0]
    try:
        stores = [p for p in path.parent.iterdir() if p.suffix == ".npz" and p.name.rsplit("-", 1)[0] == assignment]
        stores.sort(key=lambda p: p.stat().st_mtime, reverse=True)
        for old in stores[KEEP:]:
            if old != path:
                for part in (old, old.with_suffix(".json"), old.with_suffix(".lock")):
                    part.unlink(missing_ok=True)
    except OSError:
        return


def store_of(assignment: Assignment) -> OutputStore:
    """The store for the assignment's files as they are now."""
    return _store(cache_path(assignment))


@cache
def _store(path: Path) -> OutputStore:
    return OutputStore(path)


class Reference:
    """Probe outputs of one implementation (the reference, or a known mistake) run in this process."""

    def __init__(
        self, namespace: dict | Callable[[], dict], label: str = "reference", store: OutputStore | None = None
    ):
        self._namespace = namespace
        self._impl: Implementation | None = None
        self.label = label
        self.store = store
        self._cache: dict[str, Outputs] = {}
        self.computed = 0  # outputs computed here, not found in the store

    @classmethod
    def of(cls, assignment: Assignment) -> Reference:
        return cls.from_file(assignment.reference_path, assignment.name, store=store_of(assignment))

    @classmethod
    def from_file(cls, path: Path, name: str, store: OutputStore | None = None) -> Reference:
        """The reference of assignment ``name`` in the file at path, loaded at its first use."""

        def load() -> dict:
            return exec_source(path.read_text(), str(path), f"reference_{name}")

        return cls(load, store=store)

    @property
    def impl(self) -> Implementation:
        if self._impl is None:
            namespace = self._namespace() if callable(self._namespace) else self._namespace
            single_threaded()
            self._impl = Implementation(namespace, device="cpu", label=self.label)
        return self._impl

    def outputs(self, probe_id: str, inputs: dict, key: str | None = None) -> Outputs:
        """The probe's outputs and error; key: wire.digest(probe_id, inputs), where the caller has it."""
        key = key or wire.digest(probe_id, inputs)
        if key not in self._cache:
            found = self.store.get(self.label, key) if self.store is not None else None
            if found is None:
                with warnings.catch_warnings(), np.errstate(all="ignore"):  # a mistake may overflow on purpose
                    warnings.simplefilter("ignore")
                    found = run_probe(probe_id, self.impl, inputs)
                self.computed += 1
                if self.store is not None:
                    self.store.put(self.label, key, found)
            self._cache[key] = found
        return self._cache[key]

    def noted(self, key: str, compute: Callable[..., dict | None], *args) -> dict:
        """A fact derived from this implementation's code (OutputStore.noted), kept in its store where it has one."""
        return (compute(*args) or {}) if self.store is None else self.store.noted(key, compute, *args)

    def run(self, probe_id: str, inputs: dict) -> dict[str, np.ndarray]:
        outputs, error = self.outputs(probe_id, inputs)
        if error is not None:
            raise RuntimeError(f"the {self.label} failed probe {probe_id}: {error}")
        return outputs


def cache_path(assignment: Assignment) -> Path:
    """Where the outputs are kept: named by everything that decides a grade (grade/deciding.py), the Python and the
    libraries. Hashing the deciding files takes milliseconds, and naming a student's mistakes asks for the store
    dozens of times: the name is kept while no deciding file is written (its size, times and inode the same), and
    within one grading (``one_grading``) the files are listed and looked at once."""
    which = _which(assignment)
    if which in _pinned:
        return _pinned[which]
    stamp = tuple(_stamp(path) for path in deciding_files(assignment))
    kept = _named.get(which)
    if kept is None or kept[0] != stamp:
        digest = deciding_digest(assignment, sys.version, platform.machine(), _versions())
        kept = _named[which] = (stamp, CACHE / f"{assignment.name}-{digest.hexdigest()[:20]}.npz")
    return kept[1]


def _which(assignment: Assignment) -> tuple[str, str, str]:
    """The key of an assignment's store name: its name, its folder and the cache's folder."""
    return (assignment.name, str(assignment.folder), str(CACHE))


_named: dict[tuple[str, str, str], tuple[tuple, Path]] = {}  # _which -> (files' stamp, store)
_pinned: dict[tuple[str, str, str], Path] = {}  # _which -> the store of the grading under way


@contextmanager
def one_grading(assignment: Assignment) -> Iterator[None]:
    """Within, the assignment's files count as they were on entry: a grading names its store once, where naming
    its mistakes would ask for it dozens of times (listing and looking at every deciding file each time, a fifth
    of a grading's time in the grader). A file written meanwhile counts from the next grading on."""
    which = _which(assignment)
    if which in _pinned:  # a grading within a grading (the host check): the outer one's store
        yield
        return
    _pinned[which] = cache_path(assignment)
    try:
        yield
    finally:
        del _pinned[which]


def _stamp(path: Path) -> tuple:
    """What changes when a file is written (ctime too, which no program can set back)."""
    try:
        info = path.stat()
    except OSError:
        return (str(path),)
    return (str(path), info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino)


@cache
def _versions() -> str:
    """The libraries the outputs depend on (read once: importlib.metadata scans every installed package)."""
    found = []
    for package in ("torch", "numpy", "matplotlib"):
        try:
            found.append(f"{package}={version(package)}")
        except PackageNotFoundError:
            pass
    return " ".join(found)
