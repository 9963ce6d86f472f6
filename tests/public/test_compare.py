"""Does the comparison of a student's outputs with the expected ones say the first problem, in words to act on?"""

import numpy as np

from autograder.public import wire
from autograder.public.compare import differences, matches
from autograder.public.probing import EXACT, Tolerance


def test_first_difference_names_index_and_both_values():
    """Does a value mismatch say where, with both values, and how many differ?"""
    want = {"out": np.zeros((2, 3), dtype=np.float32)}
    got = {"out": np.array([[0, 0, 0], [0, 0.5, 0]], dtype=np.float32)}
    message = differences(got, want, {"out": Tolerance(1e-4, 1e-5, "")})[0]
    assert "index (1, 1)" in message and "got 0.5" in message and "expected 0" in message and "1 of 6" in message


def test_nan_and_inf_are_counted_apart_from_the_largest_difference():
    """Are the nan and inf values a code gives where finite ones are expected counted, rather than left out of "the
    largest difference" (which then spoke of the values that were close)?"""
    want = {"out": np.array([[0.1, 0.2, 0.7], [0.3, 0.3, 0.4]])}
    got = {"out": np.array([[np.nan, np.nan, np.nan], [0.3 + 1e-16, 0.3, 0.4]])}
    message = differences(got, want, {"out": Tolerance(1e-6, 1e-9, "")})[0]
    assert "3 of 6 values differ; 3 nan where a finite value is expected;" in message
    assert "largest difference" not in message
    got = {"out": np.array([[np.inf, 0.2, 0.5], [0.3, 0.3, 0.4]])}
    message = differences(got, want, {"out": Tolerance(1e-6, 1e-9, "")})[0]
    assert "among the finite ones, the largest difference is 0.2; 1 inf where a finite value is expected" in message


def test_a_list_of_another_length_shows_where_and_both_lists():
    """Does a token list of another length say both lengths, the first entry that differs and both lists, rather
    than a "shape" with nothing to act on?"""
    want = {"tokens": np.array(["its", "a", "fact"])}
    got = {"tokens": np.array(["it", "s", "a", "fact"])}
    message = differences(got, want, {"tokens": EXACT})[0]
    assert message == (
        "tokens has 4 entries; expected 3: the first difference is at index 0: got 'it', expected 'its'\n"
        "  got:      ['it', 's', 'a', 'fact']\n  expected: ['its', 'a', 'fact']"
    )
    long = {"tokens": np.array([str(i) for i in range(30)])}
    message = differences(long, {"tokens": np.array([str(i) for i in range(29)])}, {"tokens": EXACT})[0]
    assert (
        message == "tokens has 30 entries; expected 29: the first difference is at index 29: got '29', expected nothing"
    )


def test_shape_mismatch_comes_first():
    """Is a shape that differs said before any value, with both shapes?"""
    want = {"out": np.zeros((2, 4, 5, 3))}
    got = {"out": np.zeros((2, 5, 4, 3))}
    assert differences(got, want, {"out": EXACT}) == ["out has shape (2, 5, 4, 3); expected (2, 4, 5, 3)"]


def test_dtype_tensorness_and_device_are_read_from_the_arrays():
    """Are a dtype, a missing tensor and a device read from what arrived, never from a label beside it?"""
    want = {"ids": wire.with_device(np.zeros(3, dtype=np.int64), "cpu")}
    as_float = {"ids": wire.with_device(np.zeros(3, dtype=np.float32), "cpu"), "ids@dtype": np.array("int64")}
    assert "dtype float32; expected int64" in differences(as_float, want, {"ids": EXACT})[0]
    assert "should be a tensor" in differences({"ids": np.zeros(3, dtype=np.int64)}, want, {"ids": EXACT})[0]
    on_cpu = {"ids": wire.with_device(np.zeros(3, dtype=np.int64), "cpu")}
    assert "expected it on cuda" in differences(on_cpu, want, {"ids": EXACT}, device="cuda")[0]
    assert differences(on_cpu, want, {"ids": EXACT}, device="cuda", any_device=True) == []


CLOSE = Tolerance(1e-4, 1e-5, "float32 arithmetic in another order")


def test_a_missing_output_is_named_and_an_output_the_probe_did_not_make_is_skipped():
    """Does an output the code did not return say so, and is a key the expected outputs lack not compared at all?"""
    want = {"out": np.zeros(2)}
    assert differences({}, want, {"out": EXACT, "attn": EXACT}) == ["out: your code returned nothing for it"]
    assert differences({"out": np.zeros(2)}, want, {"out": EXACT, "attn": EXACT}) == []


def test_strings_and_numbers_are_told_apart_before_values():
    """Where strings are expected and numbers come back (or the reverse), does the message say which to hold?"""
    strings = {"tokens": np.array(["a", "b"])}
    numbers = {"tokens": np.array([1, 2])}
    assert differences(numbers, strings, {"tokens": EXACT}) == ["tokens should hold strings"]
    assert differences(strings, numbers, {"tokens": EXACT}) == ["tokens should hold numbers"]


def test_a_boolean_output_takes_zero_and_one_but_not_floats():
    """Does a 0/1 integer mask pass where booleans are expected, and a float mask fail naming its dtype?"""
    want = {"mask": np.array([True, False, True])}
    assert differences({"mask": np.array([1, 0, 1])}, want, {"mask": EXACT}) == []
    assert differences({"mask": np.array([1.0, 0.0, 1.0])}, want, {"mask": EXACT}) == [
        "mask should hold booleans (or 0/1), not float64"
    ]
    assert (
        "mask at index (1,): got True, expected False"
        in differences({"mask": np.array([1, 1, 1])}, want, {"mask": EXACT})[0]
    )


def test_a_single_value_says_the_value_differs_with_the_tolerance():
    """Does a 0-d output name no index, say "the value differs" and give the tolerance it was held to?"""
    message = differences({"p": np.array(0.2)}, {"p": np.array(0.1)}, {"p": CLOSE})[0]
    assert (
        message
        == "p: got 0.2, expected 0.1 (the value differs; the largest difference is 0.1; tolerance: atol 1e-05, rtol 0.0001)"
    )
    assert differences({"p": np.array(2)}, {"p": np.array(1)}, {"p": EXACT})[0].endswith("tolerance: exact)")


def test_values_within_the_tolerance_match():
    """Is a difference inside atol + rtol * |want| no difference, and one just outside it one?"""
    want = {"out": np.array([1.0, 100.0])}
    inside = {"out": np.array([1.0 + 1e-5, 100.0 + 1e-2])}  # 1e-5 <= 1e-5 + 1e-4; 1e-2 <= 1e-5 + 1e-2
    outside = {"out": np.array([1.0, 100.0 + 2e-2])}
    assert differences(inside, want, {"out": CLOSE}) == []
    assert "1 of 2 values differ" in differences(outside, want, {"out": CLOSE})[0]


def test_matches_compares_kind_shape_dtype_and_values_but_not_the_device():
    """Does matches accept the same outputs on another device, and refuse another shape, dtype or value?"""
    want = {"out": wire.with_device(np.ones(3, dtype=np.float32), "cpu")}
    assert matches({"out": wire.with_device(np.ones(3, dtype=np.float32), "cuda")}, want, {"out": CLOSE})
    assert not matches({"out": wire.with_device(np.ones(4, dtype=np.float32), "cpu")}, want, {"out": CLOSE})
    assert not matches({"out": wire.with_device(np.ones(3, dtype=np.float64), "cpu")}, want, {"out": CLOSE})
    assert not matches({"out": wire.with_device(np.full(3, 2, dtype=np.float32), "cpu")}, want, {"out": CLOSE})
    assert not matches({}, want, {"out": CLOSE})
    assert matches({}, want, {"other": CLOSE})  # an output the expected ones lack is not compared


def test_matches_takes_zero_and_one_for_booleans():
    """Is a 0/1 integer array the same as the booleans it stands for, as differences judges it?"""
    want = {"mask": np.array([True, False])}
    assert matches({"mask": np.array([1, 0])}, want, {"mask": EXACT})
    assert not matches({"mask": np.array([0, 1])}, want, {"mask": EXACT})
