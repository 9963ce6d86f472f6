"""Error carried forward, on the trusted side: the reference answering the stand-ins of public/carry.py.

When a graded name fails its own checks, each caller's checks run a second time with
the failing name standing in as the reference (``Server``): the student's process
sends each call's data (its arguments, a module's state), the reference computes on
it here, and the answer (and, asked later, its gradient) goes back. Functions the
caller passes (a sublayer, a dropout module) are run where they live, the student's
process, when the reference calls them. A server answers one carried run only and is
closed after it: nothing it lent answers later.

Every request is bounded (how many, how large, how deeply nested), and what the
reference raises on the student's data goes back as its type and message only, never
a line of the reference.

For the notebook, which has no grader to ask, grade/recorded.py records the reference's
calls of the other graded names on each visible check's inputs instead.
"""

from __future__ import annotations

import re
from contextlib import contextmanager

import numpy as np

from ..assignments import Assignment
from ..public.carry import (
    Message,
    Substitutes,
    attach,
    carried_note,
    differentiable,
    error_reply,
    grad_enabled,
    replace_tensors,
    talk,
)
from ..public.plain_trees import CarryError, Decoder, Encoder
from ..public.selfcheck import exercises_called
from ..results.scoring import summarize
from .mistakes import name_mistakes
from .reference import Reference
from .unfinished import calling_in, not_started

# What the reference computes on is the student's data, so every request is bounded before
# the reference sees it, well above what a caller checked on the graders' inputs passes (a few
# thousand values, axes of at most 64, sizes of at most 64): a hostile caller must not make the
# trusted grader build huge tensors (attention's scores grow with the product of two axes).
MAX_REQUESTS = 4096  # calls the reference answers in one carried run
MAX_ELEMENTS = 1 << 16  # values in one request's arrays, or in one answer of the student's side
MAX_AXIS = 1024  # the length of any axis of those arrays
MAX_INTEGER = 4096  # any integer argument (a width, a number of heads) the reference is given
MAX_INSTANCES = 256  # modules the reference builds in one carried run
MAX_NESTING = 8  # calls within the functions a caller passed, within calls ...


def kinds(reference: Reference, names) -> dict[str, str]:
    """What each of the reference's names is: "module" (a class) or "function"."""
    return {name: "module" if isinstance(getattr(reference.impl, name), type) else "function" for name in names}


class _Interrupted(Exception):
    """The student's side failed while the reference waited on it: the exchange ends with that failure."""


class Overrun(Exception):
    """The reference could not answer a request within the memory it is given: its run's reference stops
    (grade/reference_process.py); the message says so, for the student."""


class Server:
    """The reference answering the stand-ins of one carried run (the names given), until closed.

    memory_bytes: where the reference runs under that bound (grade/reference_process.py), a request
    it lacks the memory for raises Overrun, saying how much it asked; otherwise (None) it is answered
    with the error, as any other the reference raises."""

    def __init__(self, reference: Reference, names, memory_bytes: int | None = None):
        self.reference = reference
        self.kinds = kinds(reference, names)
        self.memory_bytes = memory_bytes
        self.open = True
        self.requests = 0
        self.depth = 0
        self.instances: list[tuple[str, object]] = []
        self.graphs: dict[int, tuple[list, list]] = {}
        self.fatal: BaseException | None = None  # the transport's failure, raised again where the exchange began

    def close(self) -> None:
        self.open = False
        self.instances.clear()
        self.graphs.clear()

    # ---------------------------------------------------------------- the conversation with a sandboxed process

    def converse(self, send, receive, meta: dict, arrays: dict) -> Message:
        """Send a batch to the student's process and serve its stand-ins' requests until its result comes."""

        def serve(request: dict, data: dict) -> Message:
            return self.handle(request, data, callback)

        def callback(request: dict, data: dict) -> Message:
            return talk(send, receive, (request, data), "carry", serve)

        reply = talk(send, receive, (meta, arrays), "carry", serve)
        if self.fatal is not None:
            raise self.fatal
        return reply

    # ---------------------------------------------------------------- one request

    def handle(self, meta: dict, arrays: dict, callback) -> Message:
        """The reference's answer to one request of a stand-in; ``callback`` asks the student's side."""
        self.depth += 1
        try:
            self._admit(meta, arrays)
            kind = meta["kind"]
            if kind == "vjp":
                return self._vjp(meta, arrays)
            if kind == "init":
                return self._init(meta, arrays, callback)
            return self._call(meta, arrays, callback)
        except CarryError as refused:
            if self.fatal is not None:
                raise self.fatal from None
            return error_reply("carried", str(refused))
        except _Interrupted:
            raise self.fatal from None  # type: ignore[misc]  # set with every _Interrupted
        except Exception as error:  # the reference raised on the student's data: its type and message only
            if self.fatal is not None:
                raise self.fatal from None
            if self.memory_bytes is not None and out_of_memory(error):
                raise Overrun(self._overrun(meta, error)) from None
            return error_reply("carried", plain_error(error))
        finally:
            self.depth -= 1

    def _overrun(self, meta: dict, error: BaseException) -> str:
        name = meta.get("name") if meta.get("kind") != "vjp" else "the gradient of a call"
        asked = allocation_asked(error)
        need = f"{asked / 2**30:.2f} GiB at once" if asked else "more memory than that"
        given = (self.memory_bytes or 0) / 2**30
        return (
            f"the reference standing in for {name} would need {need} to answer a call your code made, and is given "
            f"{given:g} GiB: it answers no more calls in this run (look at the shapes your code passes it)"
        )

    def _admit(self, meta: dict, arrays: dict) -> None:
        if not self.open:
            raise CarryError("the reference stands in only while the checks it was lent to run")
        if meta.get("op") != "carry" or meta.get("kind") not in ("call", "init", "forward", "vjp"):
            raise CarryError("a request the reference does not answer")
        self.requests += 1
        if self.requests > MAX_REQUESTS:
            raise CarryError(f"the reference stands in for at most {MAX_REQUESTS} calls in one run of the checks")
        if self.depth > MAX_NESTING:
            raise CarryError(f"calls nested more than {MAX_NESTING} deep are not carried")
        bounded(meta, arrays)
        if meta["kind"] == "vjp":
            return
        name = str(meta.get("name"))
        wanted = "function" if meta["kind"] == "call" else "module"
        if self.kinds.get(name) != wanted:
            raise CarryError(f"the reference does not stand in for {name!r} here")

    def _inputs(self, meta: dict, arrays: dict, callback, parts=("args", "kwargs")):
        decoder = Decoder(arrays, _leaf, lambda handle: _Passed(self, handle, callback))
        values = [decoder.value(meta.get(part)) for part in parts]
        if not isinstance(values[0], tuple) or not isinstance(values[1], dict):
            raise CarryError("a request's arguments are malformed")
        return values, [t for t in decoder.tensors if t.requires_grad]

    def _call(self, meta: dict, arrays: dict, callback) -> Message:
        (args, kwargs), leaves = self._inputs(meta, arrays, callback)
        if meta["kind"] == "call":
            with grad_enabled():
                result = getattr(self.reference.impl, meta["name"])(*args, **kwargs)
            return self._answer(result, leaves)
        module, state = self._instance(meta, arrays)
        with grad_enabled():
            result = _functional_call(module, state, args, kwargs)
        return self._answer(result, leaves + [t for t in state.values() if t.requires_grad])

    def _instance(self, meta: dict, arrays: dict):
        """The module a forward request names, in the mode sent, and the state sent (fresh tensors, those that
        require a gradient leaves of their own): the module computes with them, never changed in place, so
        that every earlier call's gradient still holds."""
        instance = meta.get("instance")
        if not isinstance(instance, int) or not 0 <= instance < len(self.instances):
            raise CarryError("a module the reference never built")
        name, module = self.instances[instance]
        if name != meta["name"]:
            raise CarryError("a module the reference never built")
        state = Decoder(arrays, _leaf).value(meta.get("state"))
        if not isinstance(state, dict):
            raise CarryError("a module's state is malformed")
        own = dict(module.named_parameters())  # type: ignore[attr-defined]
        own.update(dict(module.named_buffers()))  # type: ignore[attr-defined]
        for path, value in state.items():
            target = own.get(path)
            if target is None or tuple(target.shape) != tuple(value.shape):
                raise CarryError(f"the state sent for {name} does not fit the reference's {path}")
        module.train(bool(meta.get("training")))  # type: ignore[attr-defined]
        return module, state

    def _init(self, meta: dict, arrays: dict, callback) -> Message:
        import torch  # here: a NumPy assignment is graded without importing PyTorch

        (args, kwargs), _ = self._inputs(meta, arrays, callback)
        if len(self.instances) >= MAX_INSTANCES:
            raise CarryError(f"the reference builds at most {MAX_INSTANCES} modules in one run of the checks")
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(0)  # the same starting weights in every run
            module = getattr(self.reference.impl, meta["name"])(*args, **kwargs)
        self.instances.append((meta["name"], module))
        result = {
            "instance": len(self.instances) - 1,
            "parameters": dict(module.named_parameters()),
            "buffers": dict(module.named_buffers()),
        }
        answer: dict = {}
        return {"op": "carried", "result": Encoder(answer).tree(result), "call": None, "error": None}, answer

    def _answer(self, result, leaves: list) -> Message:
        answer: dict = {}
        encoder = Encoder(answer)
        tree = encoder.tree(result)
        call = None
        if leaves and any(t.requires_grad for t in encoder.tensors):
            call = len(self.graphs)
            self.graphs[call] = (leaves, list(encoder.tensors))
        return {"op": "carried", "result": tree, "call": call, "error": None}, answer

    def _vjp(self, meta: dict, arrays: dict) -> Message:
        import torch  # here: a NumPy assignment is graded without importing PyTorch

        leaves, outputs = self.graphs.pop(meta.get("call"), (None, None))  # type: ignore[arg-type]
        if leaves is None:
            raise CarryError("no such call to give a gradient of")
        grads = Decoder(arrays, lambda array, _: torch.from_numpy(np.array(array, copy=True))).value(meta.get("grads"))
        if not isinstance(grads, list) or len(grads) != len(outputs):
            raise CarryError("gradients of another shape than the call's outputs")
        pairs = [
            (o, g.to(o.dtype).reshape(o.shape)) for o, g in zip(outputs, grads) if g is not None and o.requires_grad
        ]
        wanted = [leaf for leaf in leaves if leaf.requires_grad]
        if pairs:
            # The gradient of sum(output * grad): the vector-Jacobian product asked for, made as the student's
            # side makes it (public/carry.py). Gradients passed in explicitly make PyTorch import its symbolic
            # shapes, and SymPy with them: 0.25 s of CPU in each run's fresh process. Autograd is on for the sum:
            # in a notebook's kernel this is asked from within the student's backward pass, where it is off.
            with grad_enabled():
                total = sum(((o * g).sum() for o, g in pairs), torch.zeros((), dtype=pairs[0][0].dtype))
            found = torch.autograd.grad(total, wanted, allow_unused=True)
        else:
            found = torch.autograd.grad([], wanted, [], allow_unused=True)
        by_leaf = dict(zip(map(id, wanted), found))
        answer: dict = {}
        tree = Encoder(answer).tree([by_leaf.get(id(leaf)) for leaf in leaves])
        return {"op": "carried", "result": tree, "call": None, "error": None}, answer

    # ---------------------------------------------------------------- asking the student's side

    def ask_student(self, callback, meta: dict, arrays: dict) -> Message:
        if self.fatal is not None:
            raise _Interrupted()
        try:
            return callback(meta, arrays)
        except BaseException as error:  # the process died, hung or overflowed: the exchange ends with it
            self.fatal = error
            raise _Interrupted() from None


class _Passed:
    """A function the caller passed (a sublayer, a dropout module), run by the student's side when the reference calls it."""

    def __init__(self, server: Server, handle: int, callback):
        self.server = server
        self.handle = handle
        self.callback = callback

    def __call__(self, *args, **kwargs):
        import torch  # here: a NumPy assignment is graded without importing PyTorch

        arrays: dict = {}
        encoder = Encoder(arrays)
        meta = {"op": "callback", "kind": "call", "handle": self.handle, "args": encoder.tree(tuple(args))}
        meta["kwargs"] = encoder.tree(dict(kwargs))
        inputs = [t for t in encoder.tensors if t.requires_grad]
        reply, answer = self.server.ask_student(self.callback, meta, arrays)
        if reply.get("op") != "called":
            raise CarryError("the student's side answered a call of its own function with something else")
        bounded(reply, answer)
        if reply.get("error"):
            raise CarryError(f"the function passed in raised {reply['error']}")
        decoder = Decoder(answer, lambda array, _: torch.from_numpy(np.array(array, copy=True)))
        result = decoder.value(reply.get("result"))
        if not (inputs and reply.get("call") is not None and any(differentiable(t) for t in decoder.tensors)):
            return result
        call = reply["call"]
        joined = attach(inputs, decoder.tensors, lambda grads: self._vjp(call, grads, len(inputs)))
        return replace_tensors(reply.get("result"), result, iter(joined))

    def _vjp(self, call, grads: list, count: int) -> list:
        import torch  # here: a NumPy assignment is graded without importing PyTorch

        arrays: dict = {}
        tree = Encoder(arrays).tree(list(grads))
        reply, answer = self.server.ask_student(
            self.callback, {"op": "callback", "kind": "vjp", "call": call, "grads": tree}, arrays
        )
        got = Decoder(answer, lambda array, _: torch.from_numpy(np.array(array, copy=True))).value(reply.get("result"))
        if reply.get("error") or not isinstance(got, list) or len(got) != count:
            raise CarryError(f"the function passed in could not give its gradient: {reply.get('error')}")
        return got


def _functional_call(module, state: dict, args: tuple, kwargs: dict):
    from torch.func import functional_call  # here: a NumPy assignment is graded without importing PyTorch

    return functional_call(module, state, args, kwargs)


def bounded(meta: dict, arrays: dict) -> None:
    """CarryError unless a message's arrays and integers are within what the reference is given."""
    sizes = [np.asarray(a).shape for a in arrays.values()]
    if sum(int(np.prod(shape)) for shape in sizes) > MAX_ELEMENTS:
        raise CarryError(f"the reference is given at most {MAX_ELEMENTS} values in one call")
    if any(axis > MAX_AXIS for shape in sizes for axis in shape):
        raise CarryError(f"the reference is given no axis longer than {MAX_AXIS}")
    pending = list(meta.values())
    while pending:
        value = pending.pop()
        if isinstance(value, bool):
            continue
        if isinstance(value, int) and abs(value) > MAX_INTEGER:
            raise CarryError(f"the reference is given no integer above {MAX_INTEGER}")
        if isinstance(value, dict):
            pending += list(value.values())
        elif isinstance(value, list):
            pending += value


def out_of_memory(error: BaseException) -> bool:
    """Whether an error is an allocation refused (NumPy's MemoryError, PyTorch's allocator's RuntimeError)."""
    return isinstance(error, MemoryError) or "can't allocate memory" in str(error)[:500]


def allocation_asked(error: BaseException) -> int | None:
    """The bytes a refused allocation asked for, where its message says (PyTorch's allocator and NumPy's do)."""
    text = str(error)[:500]
    found = re.search(r"tried to allocate (\d+) bytes", text)
    if found:
        return int(found.group(1))
    found = re.search(r"Unable to allocate ([\d.]+) (B|KiB|MiB|GiB|TiB|PiB|EiB)", text)
    if found:
        unit = ("B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB").index(found.group(2))
        return int(float(found.group(1)) * 1024**unit)
    return None


def _leaf(array: np.ndarray, wants_grad: bool):
    import torch  # here: a NumPy assignment is graded without importing PyTorch

    tensor = torch.from_numpy(np.array(array, copy=True))
    return tensor.requires_grad_(True) if wants_grad and differentiable(tensor) else tensor


def plain_error(error: BaseException) -> str:
    """An error's type and first line: never where in the reference it was raised."""
    try:
        text = str(error).strip().splitlines()[0][:300]
    except Exception:
        text = ""
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


# ------------------------------------------------------------------ in this process (nbgrader's kernel)


@contextmanager
def standing_in(reference: Reference, names, namespace: dict, device: str = "cpu"):
    """The reference's names standing in for the namespace's own while the block runs, answered in this process."""
    server = Server(reference, names)
    substitutes = Substitutes(
        server.kinds, lambda meta, arrays: server.handle(meta, arrays, substitutes.on_callback), device=device
    )
    try:
        with substitutes.installed([namespace]):
            yield
    finally:
        server.close()


# ------------------------------------------------------------------ which names are graded so


def carry_forward(
    points: dict[str, float],
    graded: tuple[str, ...],
    calls: dict[str, set[str]],
    unfinished: frozenset[str],
    results: list,
    rerun,
) -> dict[str, tuple[str, ...]]:
    """Grade again each name that lost points and whose code calls graded names that lose points too, with
    the reference standing in for those (``rerun(name, callees)`` gives that run's results); keep the run
    that earns more, its results carrying the note and the names stood in for. ``results`` is changed in
    place; returns the names graded so, with the names that stood in.

    calls: each name's graded names its code calls, directly or through others; unfinished: the names
    not started (their code still raises its stub, grade/unfinished.py: not graded again). Callees come
    first, so that a name that
    earns all its points once graded so is its own callers' callee no longer: its own code stands.
    """
    carried: dict[str, tuple[str, ...]] = {}
    losing = _losing(points, results)  # summed over every result: again only when the results change
    for name in sorted(graded, key=lambda n: len(calls.get(n, set()))):
        callees = tuple(n for n in graded if n in calls.get(name, set()) & losing)
        if name not in losing or not callees or name in unfinished:
            continue
        again = rerun(name, callees)
        if _score(points, name, again) > _score(points, name, results):
            note = carried_note(name, callees)
            for result in again:
                result.carried = list(callees)
                result.message = note + ("\n" + result.message if result.message else "")
            results[:] = [r for r in results if r.name != name] + again
            carried[name] = callees
            losing = _losing(points, results)
    return carried


def _score(points: dict[str, float], name: str, results: list):
    """The points one graded name earns from these results."""
    mine = [r for r in results if r.name == name]
    return summarize(points, mine, names=[name], assignment="", submission="").by_name()[name][0]


def _losing(points: dict[str, float], results: list) -> set[str]:
    """The graded names that do not earn all their points from these results."""
    hidden = [r for r in results if r.kind == "hidden"]
    names = list(dict.fromkeys(r.name for r in hidden))
    if not hidden:
        return set()
    by_name = summarize(points, hidden, names=names, assignment="", submission="").by_name()
    return {name for name, (score, top) in by_name.items() if score < top}


def carry_in_kernel(assignment: Assignment, reference: Reference, name: str, namespace: dict, own: list, run_checks):
    """nbgrader's route: error carried forward for one graded name, in the kernel that holds the student's
    code (``namespace``), the reference standing in from this process.

    own: the name's results; run_checks(name): a name's hidden checks on the namespace as it is now.
    Returns the name's results (of the better run) and the names the reference stood in for (none: ())."""
    if not assignment.carry_forward or name not in _losing(assignment.points, own):
        return own, ()
    graded = assignment.graded
    calls = {n: set(exercises_called(namespace[n], n, graded, namespace)) for n in graded if n in namespace}
    reached = [n for n in graded if n == name or n in calls.get(name, set())]
    results = list(own) + [result for n in reached if n != name for result in run_checks(n)]
    unfinished = not_started(results, calling_in(namespace))

    def rerun(caller: str, callees: tuple[str, ...]) -> list:
        with standing_in(reference, callees, namespace):
            return run_checks(caller)

    carried = carry_forward(assignment.points, tuple(reached), calls, unfinished, results, rerun)
    return [result for result in results if result.name == name], carried.get(name, ())


def checked_in_kernel(assignment: Assignment, reference: Reference, name: str, namespace: dict, run_checks):
    """nbgrader's route for one graded name: its hidden checks on the kernel's code (``run_checks(name)``, as
    ``carry_in_kernel`` takes it), error carried forward, and its known mistakes named as ``grade`` names
    them: a called name's only where this name's code calls it and it fails its own checks.

    Returns the name's results and the names the reference stood in for (none: ())."""
    own = run_checks(name)
    if name in not_started(own, calling_in(namespace)):
        return own, ()  # not started: not graded again, nothing to explain
    results, carried = carry_in_kernel(assignment, reference, name, namespace, own, run_checks)
    if all(result.passed for result in results):
        return results, carried  # nothing to explain
    called = frozenset(exercises_called(namespace[name], name, assignment.graded, namespace))
    failing = frozenset(
        callee
        for callee in called - set(carried)
        if not all(result.passed for result in run_checks(callee) if result.kind == "hidden")
    )
    name_mistakes(assignment, name, results, failing, None, called, frozenset(carried))
    return results, carried
