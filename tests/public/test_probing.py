"""Do probes run a graded name the same way on any code, turn what it returns into plain arrays, and say
what went wrong in the student's words?"""

import numpy as np
import pytest
import torch

from autograder.public import probing
from autograder.public.probing import (
    EXACT,
    ContractError,
    Implementation,
    Tolerance,
    describe_exception,
    error_kind,
    frame_name,
    is_kit_or_library,
    raising_calls,
    run_probe,
    same_error,
    to_plain,
)
from autograder.public.wire import device_of


@pytest.fixture
def probes(monkeypatch):
    """An empty registry of probes for the test, the kit's own left as they are."""
    monkeypatch.setattr(probing, "PROBES", {})
    return probing.PROBES


def test_a_tolerance_is_atol_plus_rtol_of_the_expected_value():
    """Is |got - want| <= atol + rtol * |want| the rule, with nan equal to nan and integers compared exactly?"""
    tolerance = Tolerance(rtol=0.1, atol=0.01, why="")
    want = np.array([1.0, 10.0, np.nan, 0.0])
    assert tolerance.close(np.array([1.1, 11.0, np.nan, 0.01]), want).tolist() == [True, True, True, True]
    assert tolerance.close(np.array([1.12, 11.1, 0.0, 0.02]), want).tolist() == [False, False, False, False]
    assert tolerance.close(np.array([1, 2]), np.array([1, 3])).tolist() == [True, False]  # integers: exact
    assert EXACT.close(np.array([0.1 + 0.2]), np.array([0.3])).tolist() == [False]


def test_an_exact_tolerance_holds_nan_equal_to_nan_in_the_same_place():
    """Does an exact comparison of floats take a NaN for a NaN (a stored mistake's output holds one), and
    nothing else for a NaN? (Otherwise the build would never find its committed visible data equal.)"""
    assert EXACT.close(np.array([np.nan, 1.0, np.nan]), np.array([np.nan, 1.0, 1.0])).tolist() == [True, True, False]
    assert EXACT.close(np.array([1, 2]), np.array([1.0, 2.5])).tolist() == [True, False]  # an integer side: as before


def test_a_probe_registers_under_its_folder_and_name_with_its_tolerances(probes):
    """Is a probe registered as "<folder of its module>.<function>", keeping its tolerances and any_device?"""

    @probing.probe(any_device=True, out=EXACT)
    def make(impl):
        return {"out": 1}

    assert make.probe_id == "public.make"  # this module is tests.public.test_probing
    assert probes["public.make"].tolerances == {"out": EXACT} and probes["public.make"].any_device


def test_a_name_the_submission_lacks_fails_naming_it():
    """Does calling a graded name the code does not define raise ContractError naming it, and a private name
    stay an AttributeError (never looked up in the student's namespace)?"""
    impl = Implementation({"softmax": abs})
    assert impl.softmax is abs
    with pytest.raises(ContractError, match="your submission does not define split_heads"):
        impl.split_heads(1)
    with pytest.raises(AttributeError):
        impl._secret  # noqa: B018


def test_a_tensor_becomes_a_plain_array_with_its_device():
    """Is a tensor stored as a fresh array that carries its device, and a bfloat16 one as float32 values?"""
    outputs: dict = {}
    value = torch.arange(3.0, requires_grad=True) * 1
    to_plain("out", value, outputs)
    to_plain("half", torch.tensor([1.5], dtype=torch.bfloat16), outputs)
    assert outputs["out"].tolist() == [0.0, 1.0, 2.0] and device_of(outputs["out"]) == "cpu"
    assert outputs["half"].dtype == np.float32 and outputs["half"].tolist() == [1.5]
    array = np.ones(2)
    to_plain("array", array, outputs)
    array[0] = 5
    assert outputs["array"].tolist() == [1.0, 1.0] and device_of(outputs["array"]) is None  # a copy, no device


def test_a_value_that_is_no_array_is_the_students_contract_error():
    """Does an output that cannot become an array fail naming the output and the type returned?"""
    outputs: dict = {}
    to_plain("n", 3, outputs)
    assert outputs["n"].tolist() == 3
    with pytest.raises(ContractError, match="out should be a tensor, got object"):
        to_plain("out", object(), {})


def test_run_probe_turns_every_failure_into_feedback(probes):
    """Does a probe return (outputs, None), and ({}, words) when the code breaks the contract, raises, or exits?"""

    @probing.probe(out=EXACT)
    def call(impl, x):
        return {"out": impl.f(x)}

    def fails(x):
        raise ValueError("no good")

    def leaves(x):
        raise SystemExit(3)

    assert run_probe(call.probe_id, Implementation({"f": lambda x: x + 1}), {"x": np.array(1)})[0]["out"] == 2
    assert run_probe(call.probe_id, Implementation({}), {"x": 1}) == ({}, "your submission does not define f")
    outputs, error = run_probe(call.probe_id, Implementation({"f": fails}), {"x": 1})
    assert outputs == {} and error.startswith("your code raised ValueError: no good (in fails, ")
    assert run_probe(call.probe_id, Implementation({"f": leaves}), {"x": 1})[1].startswith(
        "your code raised SystemExit: 3"
    )


def test_an_error_is_placed_at_the_students_frame_nearest_it(tmp_path):
    """Does describe_exception name the student's function, file and line (never the kit's own frame) and the
    line's text, and error_kind take that place away again?"""
    path = tmp_path / "answer.py"
    path.write_text("def student(x):\n    return x.missing\n")
    namespace: dict = {}
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    try:
        run_it = namespace["student"]
        run_it(1)
    except AttributeError as error:
        said = describe_exception(error)
    assert said == (
        f"AttributeError: 'int' object has no attribute 'missing' (in student, {path}, line 2: return x.missing)"
    )
    assert error_kind(said) == "AttributeError: 'int' object has no attribute 'missing'"
    assert describe_exception(KeyError()) == "KeyError"


def test_an_error_raised_inside_a_library_is_placed_at_the_students_call(tmp_path):
    """Where the student's code passes a library bad data and the library raises, is the student's line named,
    not the library's?"""
    path = tmp_path / "answer.py"
    path.write_text("import json\n\n\ndef student(text):\n    return json.loads(text)\n")
    namespace: dict = {}
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    try:
        namespace["student"]("{")
    except ValueError as error:
        said = describe_exception(error)
    assert said.endswith(f"(in student, {path}, line 5: return json.loads(text))"), said


def test_a_frame_is_named_as_the_student_knows_it(monkeypatch):
    """Does the first name-giver that answers name a file (a notebook's cell), one that fails being skipped?"""

    def broken(filename):
        raise RuntimeError

    monkeypatch.setattr(probing, "FRAME_NAMES", [broken, lambda f: None, lambda f: "cell In [7]"])
    assert frame_name("/tmp/ipykernel_1/123.py") == "cell In [7]"
    monkeypatch.setattr(probing, "FRAME_NAMES", [])
    assert frame_name("/tmp/x.py") == "/tmp/x.py"


def test_the_kits_and_the_libraries_files_are_not_the_students():
    """Are the kit's files, the self-check bundle's and the libraries' told from a student's?"""
    assert is_kit_or_library(probing.__file__) and is_kit_or_library("<selfcheck/probing.py>")
    assert is_kit_or_library("/usr/lib/python3.11/json/decoder.py") and is_kit_or_library("<frozen runpy>")
    assert not is_kit_or_library("/home/student/attention.py")


STUB = "raise NotImplementedError('Exercise 4 (Layer): replace this line with your code.')"
LAYERS = f"""
import torch.nn as nn


class Blank(nn.Module):
    def __init__(self, d_model, *, eps=1e-5):
        super().__init__()
        # YOUR CODE HERE

    def forward(self, x):
        # YOUR CODE HERE
        {STUB}


class HalfDone(nn.Module):
    def __init__(self, d_model):
        super().__init__()
        self.linear = nn.Linear(d_model, d_model)

    def forward(self, x, mask, *, scale):
        print("forward runs")
        {STUB}


class Done(nn.Module):
    def __init__(self, d_model):
        super().__init__()
        self.linear = nn.Linear(d_model, d_model)

    def forward(self, x):
        return self.linear(x)
        {STUB}


def function(x):
    {STUB}
"""


def test_calling_a_classs_code_raises_its_stub_only_where_it_can_run(capsys):
    """Does calling a class's methods (None for each argument they require, keyword-only too) raise the stub's
    error of a class still empty or whose forward still raises it, printing nothing, and nothing for a finished
    class that keeps the stub's line under its return, nor for a function (its checks call it)?"""
    namespace: dict = {}
    exec(LAYERS, namespace)
    impl = Implementation(namespace)
    stub = "your code raised NotImplementedError: Exercise 4 (Layer): replace this line with your code."
    for name in ("Blank", "HalfDone"):
        assert run_probe(probing.CALLS_ITS_CODE, impl, {"name": name})[1].startswith(stub)
    assert run_probe(probing.CALLS_ITS_CODE, impl, {"name": "Done"}) == ({}, None)
    assert run_probe(probing.CALLS_ITS_CODE, impl, {"name": "function"}) == ({}, None)
    assert run_probe(probing.CALLS_ITS_CODE, impl, {"name": "absent"}) == ({}, None)
    assert capsys.readouterr().out == ""


def test_an_errors_raising_line_is_read_for_what_it_calls():
    """Are the calls (by their common name, an in-place method as its plain one) and the operators of the line an
    error quotes read from it, the function that line is in only when asked, and nothing where no line is quoted?"""
    error = "your code raised RuntimeError: no (in attend, x.py, line 7: s = torch.LongTensor(q @ k).masked_fill_(m, 0)  # a (b) c)"
    assert raising_calls(error) == {"tensor", "masked_fill", "matmul"}
    assert raising_calls(error, with_function=True) == {"tensor", "masked_fill", "matmul", "attend"}
    assert raising_calls("e (in f, x.py, line 2: return torch.bmm(w, v) + b)") == {"matmul"}
    broadcast = (
        "RuntimeError: The size of tensor a (6) must match the size of tensor b (3) at non-singleton dimension 1"
    )
    assert raising_calls(f"{broadcast} (in f, x.py, line 2: return torch.bmm(w, v) + b)") == {"matmul", "+"}
    assert raising_calls("your code raised RuntimeError: no (in attend, x.py, line 7)") == frozenset()
    assert raising_calls("ValueError: no") == frozenset()


def test_the_same_message_raised_by_another_operation_is_another_error():
    """Is an IndexError of key.transpose(2, 3) not the one softmax(dim=3) raises, though both say the same, while
    the student's own softmax helper raising it is, and an error quoting no line is judged by its message?"""
    message = "your code raised IndexError: Dimension out of range (expected to be in range of [-3, 2], but got 3)"
    slip = (
        f"{message} (in attention, reference.py [softmax_dim_3], line 9: attn = scores.softmax(dim=3)  # (..., q_len))"
    )
    assert not same_error(slip, f"{message} (in attention, work.py, line 4: k_t = k.transpose(2, 3))")
    assert same_error(slip, f"{message} (in attention, work.py, line 4: w = torch.softmax(s, dim=3))")
    assert same_error(slip, f"{message} (in softmax, work.py, line 2: top, _ = torch.max(x, dim=i, keepdim=True))")
    assert same_error(slip, f"{message} (in attention, work.py, line 4)")
    divided = f"{message} (in attention, work.py, line 4: w = torch.softmax(e / (d ** (1 / 2)), dim=3))"
    assert not same_error(
        f"{message} (in attention, reference.py, line 5: s = q @ k.transpose(2, 3) / sqrt(d))", divided
    )
    assert not same_error(
        slip, "your code raised IndexError: Dimension out of range (expected to be in range of [-4, 3], but got 3)"
    )
