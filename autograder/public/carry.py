"""Error carried forward: stand-ins for failing exercises that answer as the reference does.

When an exercise fails its own checks, each exercise that calls it is checked a second
time with the failing one standing in as the reference, and earns the better of the two
runs. A stand-in (a function, or an ``nn.Module`` class) holds no reference code: it turns
each call into plain data (the arguments the caller passes, and for a module its state),
asks the trusted side for the reference's answer, and turns that answer back into
tensors. The route decides who answers (``ask``):

* the grader, over the wire, from the student's sandboxed process (grade/carry.py runs
  the reference on the data sent, for that caller's checks only);
* nbgrader's kernel, the same server called in the same process;
* the student's notebook, where no grader runs: the answers recorded when the release
  was built, from the reference's own calls on each visible check's inputs
  (public/replay.py), given where the caller passes the same data within a tolerance.

Messages (the student's side asks, the trusted side answers ``carried``):

    {"op": "carry", "kind": "call",    "name": n, "args": tree, "kwargs": tree}
    {"op": "carry", "kind": "init",    "name": n, "args": tree, "kwargs": tree}
    {"op": "carry", "kind": "forward", "name": n, "instance": i, "state": tree, "training": b,
     "args": tree, "kwargs": tree}
    {"op": "carry", "kind": "vjp",     "call": c, "grads": tree}
    {"op": "carried", "result": tree, "call": c or None, "error": text or None}

While it answers, the trusted side may run a function the caller passed (a sublayer, a
dropout module): it asks the student's side, which answers ``called``:

    {"op": "callback", "kind": "call", "handle": h, "args": tree, "kwargs": tree}
    {"op": "callback", "kind": "vjp",  "call": c, "grads": tree}
    {"op": "called", "result": tree, "call": c or None, "error": text or None}

A tree is plain data with its arrays beside it (public/plain_trees.py). A gradient through a stand-in is the trusted side's too (``vjp``), where the
route carries gradients; the notebook's route carries values only.

A stand-in answers only while the checks it was made for run: once they end it refuses,
so a caller that keeps it (in a global, a closure) gains nothing from it later.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import contextmanager

import numpy as np

from .plain_trees import CarryError, Decoder, Encoder, loaded_torch, method_signature_of, normalized
from .probing import Tolerance, describe_exception

Message = tuple[dict, dict]  # (meta, arrays)
Ask = Callable[[dict, dict], Message]

# The data a caller passes to a stand-in is its own arithmetic (a projection, a residual
# sum) in float32, possibly in another order than the reference's: equal to the
# reference caller's up to a few hundred ulp. Where the answers were recorded (the
# notebook), a call is the recorded one when its data are this close.
SAME_CALL = Tolerance(rtol=1e-4, atol=1e-5, why="the caller's own float32 arithmetic before the call, in another order")


def carried_note(name: str, callees, verb: str = "graded") -> str:
    """What the feedback says of an exercise graded with the reference's callees."""
    callees = list(callees)
    listed = callees[0] if len(callees) == 1 else ", ".join(callees[:-1]) + f" and {callees[-1]}"
    which = "yours fails its own checks" if len(callees) == 1 else "yours fail their own checks"
    return f"{name} {verb} with the reference's {listed}, since {which}"


# ------------------------------------------------------------------ gradients through a carried call


@contextmanager
def grad_enabled():
    """Autograd on (a custom Function's forward turns it off), where PyTorch is in use."""
    torch = loaded_torch()
    if torch is None:
        yield
        return
    with torch.enable_grad():
        yield


def differentiable(value) -> bool:
    torch = loaded_torch()
    return torch is not None and isinstance(value, torch.Tensor) and (value.is_floating_point() or value.is_complex())


def attach(inputs: list, outputs: list, vjp: Callable[[list], list]) -> list:
    """The outputs, joined to the inputs (tensors that require a gradient) in autograd's graph:
    their gradient is what ``vjp`` (given the outputs' gradients, None where they have none) says."""
    function = _carried_function()
    ready = [output.detach() for output in outputs]
    return list(function.apply(vjp, ready, *inputs))


_FUNCTION = None


def _carried_function():
    global _FUNCTION
    if _FUNCTION is None:
        import torch  # here: public/ ships with NumPy assignments too, which run without PyTorch

        class Carried(torch.autograd.Function):
            """Outputs computed elsewhere, with a gradient asked of the same place."""

            @staticmethod
            def forward(ctx, vjp, outputs, *inputs):
                ctx.vjp = vjp
                ctx.shapes = [(tuple(i.shape), i.dtype, i.device) for i in inputs]
                made = [output.clone() for output in outputs]
                ctx.mark_non_differentiable(*[m for m in made if not differentiable(m)])
                return tuple(made)

            @staticmethod
            def backward(ctx, *grads):
                given = ctx.vjp([g if g is not None else None for g in grads])
                result = []
                for grad, (shape, dtype, device) in zip(given, ctx.shapes):
                    if grad is None:
                        result.append(None)
                    else:
                        result.append(grad.to(device=device, dtype=dtype).reshape(shape))
                return (None, None, *result)

        _FUNCTION = Carried
    return _FUNCTION


# ------------------------------------------------------------------ conversations


def talk(send: Callable[[dict, dict], None], receive: Callable[[], Message], message: Message, asks: str, serve):
    """Send a message, then serve each request of op ``asks`` the other side makes meanwhile
    (``serve(meta, arrays) -> message``), until a message of another op comes: that one is the answer."""
    send(*message)
    while True:
        meta, arrays = receive()
        if meta.get("op") != asks:
            return meta, arrays
        send(*serve(meta, arrays))


def error_reply(op: str, error: str) -> Message:
    return {"op": op, "result": None, "call": None, "error": str(error)[:2000]}, {}


# ------------------------------------------------------------------ the stand-ins


class Substitutes:
    """Stand-ins for some graded names, asking ``ask`` for the reference's answers.

    kinds: name -> "function" or "module" (what the reference's name is); gradients:
    whether ``ask`` answers gradients (vjp); device: where answers go when no tensor
    came in.
    """

    def __init__(self, kinds: dict[str, str], ask: Ask, gradients: bool = True, device: str = "cpu"):
        self.kinds = dict(kinds)
        self.ask = ask
        self.gradients = gradients
        self.device = device
        self.open = False
        self._callables: list = []  # what callers passed, by handle
        self._graphs: dict[int, tuple[list, list]] = {}  # a callback's leaves and outputs, by call

    # ---------------------------------------------------------------- putting them in place

    @contextmanager
    def installed(self, namespaces: list[dict]):
        """The stand-ins in place of the names in every namespace given (the first one by name, the others
        where they hold the same object), for the duration of the block; refused afterwards."""
        main = namespaces[0]
        originals = {name: main.get(name) for name in self.kinds}
        stand_ins = {name: self._stand_in(name, originals[name]) for name in self.kinds}
        swapped: list[tuple[dict, str, object]] = []
        for namespace in namespaces:
            for key, value in list(namespace.items()):
                name = key if namespace is main and key in stand_ins else None
                if name is None:
                    name = next((n for n, o in originals.items() if o is not None and value is o), None)
                if name is not None:
                    swapped.append((namespace, key, value))
                    namespace[key] = stand_ins[name]
            if namespace is main:
                for name in stand_ins:
                    if name not in namespace:
                        swapped.append((namespace, name, _ABSENT))
                        namespace[name] = stand_ins[name]
        self.open = True
        try:
            yield stand_ins
        finally:
            self.open = False
            self._callables.clear()
            self._graphs.clear()
            for namespace, key, value in reversed(swapped):
                if value is _ABSENT:
                    namespace.pop(key, None)
                else:
                    namespace[key] = value

    def _stand_in(self, name: str, original):
        if self.kinds[name] == "module":
            return self._module_class(name, original)

        def stand_in(*args, **kwargs):
            return self.call(name, normalized(original, args, kwargs) if callable(original) else (args, kwargs))

        stand_in.__name__ = stand_in.__qualname__ = name
        stand_in.__doc__ = f"The reference's {name}, standing in for yours while its callers are checked."
        return stand_in

    def _module_class(self, name: str, original):
        import torch  # here: public/ ships with NumPy assignments too, which run without PyTorch

        substitutes = self
        init_signature = method_signature_of(original, "__init__")
        forward_signature = method_signature_of(original, "forward")

        class StandIn(torch.nn.Module):
            def __init__(self, *args, **kwargs):
                super().__init__()
                given = normalized(init_signature, args, kwargs) if init_signature else (args, kwargs)
                result = substitutes.request("init", name, given)
                if not isinstance(result, dict) or not {"instance", "parameters", "buffers"} <= set(result):
                    raise CarryError(f"the reference's {name} answered its construction with something else")
                self._carried_instance = result["instance"]
                for path, value in result["parameters"].items():
                    _register(self, path, value, parameter=True)
                for path, value in result["buffers"].items():
                    _register(self, path, value, parameter=False)

            def forward(self, *args, **kwargs):
                given = normalized(forward_signature, args, kwargs) if forward_signature else (args, kwargs)
                state = dict(self.named_parameters())
                state.update(dict(self.named_buffers()))
                return substitutes.request(
                    "forward", name, given, instance=self._carried_instance, state=state, training=self.training
                )

        StandIn.__name__ = StandIn.__qualname__ = name
        StandIn.__doc__ = f"The reference's {name}, standing in for yours while its callers are checked."
        return StandIn

    # ---------------------------------------------------------------- one request

    def call(self, name: str, given: tuple[tuple, dict]):
        return self.request("call", name, given)

    def request(self, kind: str, name: str, given: tuple[tuple, dict], **extra):
        if not self.open:
            raise CarryError(
                f"the reference's {name} stands in only while the checks it was lent to run; it does not answer now"
            )
        args, kwargs = given
        arrays: dict = {}
        encoder = Encoder(arrays, self._callables)
        meta = {"op": "carry", "kind": kind, "name": name, "args": encoder.tree(tuple(args))}
        meta["kwargs"] = encoder.tree(dict(kwargs))
        if "state" in extra:
            meta.update(instance=extra["instance"], training=bool(extra["training"]))
            meta["state"] = encoder.tree(extra["state"])
        inputs = [t for t in encoder.tensors if t.requires_grad and differentiable(t)]
        device = next((t.device for t in encoder.tensors), None) or self.device
        reply, answer = self.ask(meta, arrays)
        if reply.get("op") != "carried":
            raise CarryError(f"the reference's {name} answered with something other than its result")
        if reply.get("unanswered"):
            raise CarryError(
                f"your code calls {name} with arguments the reference's code never passes it on this check's "
                f"inputs, so the reference's {name} cannot stand in for yours here: look at what your code passes "
                f"to {name}"
            )
        if reply.get("error"):
            raise CarryError(f"the reference's {name}, standing in for yours, raised {reply['error']}")
        decoder = Decoder(answer, self._tensor_maker(device))
        result = decoder.value(reply.get("result"))
        torch = loaded_torch()
        if not (inputs and torch is not None and torch.is_grad_enabled()):
            return result
        if not any(differentiable(t) for t in decoder.tensors):
            return result
        call = reply.get("call")
        if self.gradients and call is not None:
            joined = attach(inputs, decoder.tensors, lambda grads: self._vjp(name, call, grads, inputs))
        else:  # values only: the answer joins the graph, and no gradient flows back through it
            joined = attach(inputs, decoder.tensors, lambda grads: [None] * len(inputs))
        return replace_tensors(reply.get("result"), result, iter(joined))

    def _vjp(self, name: str, call, grads: list, inputs: list) -> list:
        arrays: dict = {}
        tree = Encoder(arrays).tree([g for g in grads])
        reply, answer = self.ask({"op": "carry", "kind": "vjp", "call": call, "grads": tree}, arrays)
        if reply.get("op") != "carried" or reply.get("error"):
            raise CarryError(f"the reference's {name} could not give its gradient: {reply.get('error')}")
        devices = iter([t.device for t in inputs])
        got = Decoder(answer, lambda array, _: _as_tensor(array, next(devices))).value(reply.get("result"))
        if not isinstance(got, list) or len(got) != len(inputs):
            raise CarryError(f"the reference's {name} gave a gradient of another shape")
        return got

    @staticmethod
    def _tensor_maker(device):
        return lambda array, _grad: _as_tensor(array, device)

    # ---------------------------------------------------------------- what the trusted side asks of this side

    def on_callback(self, meta: dict, arrays: dict) -> Message:
        """Run what a caller passed (a sublayer, a dropout) as the reference's code calls it; or its gradient."""
        try:
            if meta.get("kind") == "vjp":
                return self._callback_vjp(meta, arrays)
            handle = meta.get("handle")
            if not isinstance(handle, int) or not 0 <= handle < len(self._callables):
                return error_reply("called", "no such function was passed")
            decoder = Decoder(arrays, _leaf_maker(self.device), lambda h: self._callables[h])
            args, kwargs = decoder.value(meta.get("args")), decoder.value(meta.get("kwargs"))
            with grad_enabled():
                result = self._callables[handle](*args, **kwargs)
            answer: dict = {}
            encoder = Encoder(answer, self._callables)
            tree = encoder.tree(result)
            leaves = [t for t in decoder.tensors if t.requires_grad]
            outputs = list(encoder.tensors)  # the gradients asked for come in this order, None where there is none
            call = None
            if leaves and any(t.requires_grad for t in outputs):
                call = len(self._graphs)
                self._graphs[call] = (leaves, outputs)
            return {"op": "called", "result": tree, "call": call, "error": None}, answer
        except Exception as error:  # the caller's own function raised: the reference's call fails with it
            return error_reply("called", describe_exception(error))

    def _callback_vjp(self, meta: dict, arrays: dict) -> Message:
        import torch  # here: public/ ships with NumPy assignments too, which run without PyTorch

        call = meta.get("call")
        found = self._graphs.pop(call, None) if isinstance(call, int) else None
        if found is None:
            return error_reply("called", "no such call to give a gradient of")
        leaves, outputs = found
        grads = Decoder(arrays, _leaf_maker("cpu")).value(meta.get("grads"))
        if not isinstance(grads, list):
            return error_reply("called", "a gradient of another shape")
        pairs = [(o, g.to(o.device, o.dtype)) for o, g in zip(outputs, grads) if g is not None and o.requires_grad]
        for leaf in leaves:
            leaf.grad = None
        if pairs:
            # The gradient of sum(output * grad) is the vector-Jacobian product asked for: a scalar's
            # backward(), as the probes call it (backward with explicit gradients imports modules a
            # sandboxed process may not reach).
            with grad_enabled():  # asked from within a backward pass, where autograd records nothing
                sum(((o * g).sum() for o, g in pairs), torch.zeros((), dtype=pairs[0][0].dtype)).backward()
        answer: dict = {}
        tree = Encoder(answer).tree([leaf.grad for leaf in leaves])
        return {"op": "called", "result": tree, "call": None, "error": None}, answer


_ABSENT = object()


def _as_tensor(array, device):
    import torch  # here: public/ ships with NumPy assignments too, which run without PyTorch

    return torch.from_numpy(np.array(array, copy=True)).to(device)


def _leaf_maker(device):
    def make(array, wants_grad: bool):
        made = _as_tensor(array, device)
        return made.requires_grad_(True) if wants_grad and differentiable(made) else made

    return make


def replace_tensors(tree, value, joined):
    """The decoded value with its tensors (in tree order) replaced by the joined ones."""
    if isinstance(tree, dict) and tree.get("$") == "tensor":
        return next(joined)
    if isinstance(tree, dict) and tree.get("$") in ("list", "tuple"):
        items = [replace_tensors(t, v, joined) for t, v in zip(tree["items"], value)]
        return items if tree["$"] == "list" else tuple(items)
    if isinstance(tree, dict) and tree.get("$") == "dict":
        return {key: replace_tensors(t, value[key], joined) for key, t in tree["items"]}
    return value


def _register(module, path: str, value, parameter: bool) -> None:
    """A parameter or a buffer at a dotted path, with plain modules between."""
    import torch  # here: public/ ships with NumPy assignments too, which run without PyTorch

    *parents, leaf = path.split(".")
    node = module
    for part in parents:
        child = node._modules.get(part)
        if child is None:
            child = torch.nn.Module()
            node.add_module(part, child)
        node = child
    if not isinstance(value, torch.Tensor):
        raise CarryError(f"the reference's state at {path} is not a tensor")
    if parameter:
        node.register_parameter(leaf, torch.nn.Parameter(value.detach().clone()))
    else:
        node.register_buffer(leaf, value.detach().clone())
