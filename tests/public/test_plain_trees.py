"""Do the trees of plain data that error carried forward sends hold exactly what was passed, and nothing that
runs code or grows without bound?"""

import numpy as np
import pytest
import torch

from autograder.public.plain_trees import (
    MAX_DEPTH,
    MAX_LEAVES,
    CarryError,
    Decoder,
    Encoder,
    leaves,
    method_signature_of,
    normalized,
)


def round_trip(value, tensor=None):
    arrays: dict = {}
    tree = Encoder(arrays).tree(value)
    return tree, Decoder(arrays, tensor).value(tree)


def test_plain_values_and_containers_come_back_as_they_were_sent():
    """Do numbers, strings, None, lists, tuples and string-keyed dicts keep their types and values, arrays their
    values and dtypes (as fresh copies), and NumPy scalars become Python numbers?"""
    array = np.arange(6, dtype=np.int16).reshape(2, 3)
    value = {"a": [1, 2.5, "x", None, True], "b": (array, np.float32(0.5))}
    tree, back = round_trip(value)
    assert tree["$"] == "dict" and tree["items"][1][1]["$"] == "tuple"
    assert back["a"] == [1, 2.5, "x", None, True] and isinstance(back["b"], tuple)
    assert back["b"][0].dtype == np.int16 and np.array_equal(back["b"][0], array) and back["b"][0] is not array
    assert back["b"][1] == 0.5 and type(back["b"][1]) is float


def test_a_tensor_is_sent_as_its_values_with_whether_it_needs_a_gradient():
    """Is a tensor sent as a plain array (bfloat16 as float32) with its grad flag, the encoder keeping the tensors
    it met in order, and made again by the decoder's tensor maker with that flag?"""
    x = torch.ones(2, requires_grad=True)
    half = torch.tensor([0.5], dtype=torch.bfloat16)
    arrays: dict = {}
    encoder = Encoder(arrays)
    tree = encoder.tree([x, half])
    assert [item["grad"] for item in tree["items"]] == [True, False] and encoder.tensors == [x, half]
    assert arrays[tree["items"][1]["a"]].dtype == np.float32
    made = []
    decoder = Decoder(arrays, lambda array, grad: made.append(grad) or torch.from_numpy(array))
    back = decoder.value(tree)
    assert made == [True, False] and torch.equal(back[0], torch.ones(2)) and len(decoder.tensors) == 2
    assert [leaf["grad"] for leaf in leaves([tree], "tensor")] == [True, False]
    assert isinstance(Decoder(arrays).value(tree)[0], np.ndarray)  # no tensor maker: arrays


def test_a_dtype_travels_by_name():
    """Is a torch dtype sent as its name and read back as the same dtype, and an unknown name refused?"""
    tree, back = round_trip(torch.float64)
    assert tree == {"$": "dtype", "name": "float64"} and back is torch.float64
    with pytest.raises(CarryError, match="unknown dtype"):
        Decoder({}).value({"$": "dtype", "name": "Tensor"})


def test_callables_go_as_handles_only_where_the_encoder_takes_them():
    """Is a function sent as a handle into the encoder's list of callables, refused where there is none, and
    turned back into whatever the decoder's callable_of gives for that handle?"""
    callables: list = []
    tree = Encoder({}, callables).tree([len, abs])
    assert tree["items"] == [{"$": "callable", "h": 0}, {"$": "callable", "h": 1}] and callables == [len, abs]
    with pytest.raises(CarryError, match="a builtin_function_or_method cannot be carried"):
        Encoder({}).tree(len)
    assert Decoder({}, callable_of=lambda handle: f"handle {handle}").value(tree["items"][1]) == "handle 1"
    with pytest.raises(CarryError, match="malformed"):
        Decoder({}).value(tree["items"][1])


def test_what_cannot_be_sent_is_refused_naming_its_type():
    """Are an object, a dict with other than string keys and an array of objects refused, saying what they are?"""
    with pytest.raises(CarryError, match="a object cannot be carried"):
        Encoder().tree(object())
    with pytest.raises(CarryError, match="a dict cannot be carried"):
        Encoder().tree({1: "one"})
    with pytest.raises(CarryError, match="a ndarray cannot be carried"):
        Encoder().tree(np.array([None], dtype=object))


def test_a_tree_too_deep_or_too_large_is_refused_both_ways():
    """Are nesting beyond MAX_DEPTH and more than MAX_LEAVES values refused by the encoder and the decoder?"""
    deep: list = []
    for _ in range(MAX_DEPTH + 1):
        deep = [deep]
    with pytest.raises(CarryError, match="nested too deeply"):
        Encoder().tree(deep)
    Encoder().tree([0] * (MAX_LEAVES - 1))  # the list itself is one value: as many as allowed
    with pytest.raises(CarryError, match="too many values"):
        Encoder().tree([0] * MAX_LEAVES)
    nested = {"$": "list", "items": []}
    for _ in range(MAX_DEPTH + 1):
        nested = {"$": "list", "items": [nested]}
    with pytest.raises(CarryError, match="nested too deeply"):
        Decoder({}).value(nested)


@pytest.mark.parametrize(
    "tree, words",
    [
        ({"a": 1}, "malformed"),
        ([1, 2], "malformed"),
        ({"$": "list"}, "malformed"),
        ({"$": "dict", "items": [[1, 2]]}, "malformed"),
        ({"$": "dict", "items": [["a"]]}, "malformed"),
        ({"$": "ndarray", "a": "t9"}, "names an array that was not sent"),
        ({"$": "code", "source": "print(1)"}, "malformed"),
    ],
    ids=[
        "no tag",
        "a bare list",
        "no items",
        "a key that is no string",
        "a pair of one",
        "no such array",
        "an unknown tag",
    ],
)
def test_a_malformed_tree_is_refused(tree, words):
    """Is every tree the encoder could not have made refused with CarryError, never run or half read?"""
    with pytest.raises(CarryError, match=words):
        Decoder({}).value(tree)


def attention(query, key, value, mask=None, scale=True):
    return query


def test_a_call_by_keyword_and_by_position_are_one_call():
    """Are arguments bound to the parameters in order with defaults filled in, and left as given where the
    function takes *args or **kwargs or the arguments do not bind?"""
    assert normalized(attention, (1, 2), {"value": 3}) == ((1, 2, 3, None, True), {})
    assert normalized(attention, (1, 2, 3, None, True), {}) == ((1, 2, 3, None, True), {})
    assert normalized(lambda *args: 0, (1, 2), {"k": 3}) == ((1, 2), {"k": 3})
    assert normalized(attention, (1,), {}) == ((1,), {})  # missing arguments: the call fails as it would
    assert normalized(print, (1,), {}) == ((1,), {})


def test_a_methods_signature_is_read_without_self():
    """Does method_signature_of give a function binding like the method minus self, and None where there is none?"""

    class Layer:
        def forward(self, x, mask=None):
            return x

    bindable = method_signature_of(Layer, "forward")
    assert normalized(bindable, (), {"x": 1}) == ((1, None), {})
    assert method_signature_of(Layer, "backward") is None and method_signature_of(Layer(), "forward") is None


def test_leaves_are_found_in_order_through_lists_tuples_and_dicts():
    """Are a tree's leaves of one kind found depth first, inside lists, tuples and dicts' values, and no other kind?"""
    first, second = (lambda: 1), (lambda: 2)
    callables: list = []
    tree = Encoder({}, callables).tree([first, {"f": (np.zeros(1), second)}, 3])
    assert [leaf["h"] for leaf in leaves([tree, None], "callable")] == [0, 1] and callables == [first, second]
    assert leaves([tree], "tensor") == []
