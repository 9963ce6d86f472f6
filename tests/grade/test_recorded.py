"""Does the reference's record of its calls, which the notebook's stand-ins answer from, hold what it called?"""

import copy

from autograder import assignments
from autograder.grade.recorded import exercise_kinds, same_records, visible_records

MHA = assignments.get("mha")


def a_layer_check():
    """The first visible check of MultiHeadAttention, which calls split_heads and the other exercises."""
    return next(case for case in MHA.module("visible").VISIBLE if case.name == "MultiHeadAttention")


def test_a_layers_visible_check_records_the_exercises_it_calls_and_a_leaf_records_none():
    """Are the calls of split_heads and scaled_dot_product_attention recorded for the layer, and nothing for tokenize?"""
    case = a_layer_check()
    records = visible_records(MHA, case.name, case.probe.probe_id, case.inputs)
    called = {record["name"] for record in records["records"]}
    assert {"split_heads", "scaled_dot_product_attention", "combine_heads"} <= called
    assert case.name not in called
    leaf = next(case for case in MHA.module("visible").VISIBLE if case.name == "tokenize")
    assert visible_records(MHA, leaf.name, leaf.probe.probe_id, leaf.inputs) is None


def test_records_are_the_same_only_when_their_calls_are():
    """Is a record the same as itself and as a second recording, and not once one recorded value changes?"""
    case = a_layer_check()
    first = visible_records(MHA, case.name, case.probe.probe_id, case.inputs)
    again = visible_records(MHA, case.name, case.probe.probe_id, case.inputs)
    assert same_records(first, again) and same_records(None, None) and not same_records(first, None)
    changed = copy.deepcopy(first)
    changed["records"][0]["name"] = "another"
    assert not same_records(first, changed)
    fewer = copy.deepcopy(first)
    fewer["records"].pop()
    assert not same_records(first, fewer)


def test_exercise_kinds_tell_modules_from_functions():
    """Is a class exercise a "module" and a function exercise a "function"?"""
    kinds = exercise_kinds(MHA)
    assert kinds["MultiHeadAttention"] == "module" and kinds["Embeddings"] == "module"
    assert kinds["split_heads"] == "function" and kinds["tokenize"] == "function"
