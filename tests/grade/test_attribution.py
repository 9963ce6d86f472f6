"""Is a known mistake of a called exercise named as that exercise's only where the caller's code calls it and it
fails its own checks, in every route?

"(in X, which Y calls)" sends a student to X's cell. Where X passes its own checks, or Y
never calls X, the slip is Y's: a mistake of Y's own is named where one explains it,
and otherwise a hint says to look at how Y calls X, or where Y does X's work itself.
The notebook's checks follow the same rule (tests/public/test_selfcheck.py).
"""

import pytest

from autograder import assignments

QKV_SCALE = "scores = scores / np.sqrt(k.shape[-1])"
HEAD_CALL = "heads.append(qkv_attention(x, W_q[:, columns], W_k[:, columns], W_v[:, columns]))  # (n, d_k)"
# The heads computed inline, each divided by sqrt(d_model): the layer no longer calls qkv_attention.
INLINE_HEADS = (
    "q, k, v = x @ W_q[:, columns], x @ W_k[:, columns], x @ W_v[:, columns]\n"
    "        heads.append(softmax(q @ k.T / np.sqrt(x.shape[1]), axis=-1) @ v)"
)
ROWS = "return softmax(scores, axis=-1) @ v  # (n, d_v)"


@pytest.fixture(scope="module")
def numpy_assignment():
    return assignments.get("attention_numpy")


def edited(assignment, *edits) -> str:
    source = assignment.reference_path.read_text()
    for old, new in zip(edits[::2], edits[1::2]):
        assert source.count(old) == 1, old
        source = source.replace(old, new)
    return source


def namespace_of(source: str) -> dict:
    namespace: dict = {}
    exec(compile(source, "student", "exec"), namespace)
    return namespace


def failing_messages(report, name: str) -> str:
    return "\n".join(c.message for c in report.checks if c.name == name and c.status == "failed")


def test_a_mistake_of_an_exercise_the_caller_does_not_call_is_not_its(numpy_assignment, graders, tmp_path):
    """With qkv_attention scaled by sqrt(d_model) (failing its checks) and multi_head_attention computing its heads
    inline, scaled the same way, is the layer's own mistake named, and never qkv_attention's as the layer's?"""
    path = tmp_path / "inline.py"
    path.write_text(
        edited(numpy_assignment, HEAD_CALL, INLINE_HEADS, QKV_SCALE, "scores = scores / np.sqrt(x.shape[-1])")
    )
    report = graders(numpy_assignment).grade(path)
    layer = [c for c in report.hidden if c.name == "multi_head_attention" and c.status == "failed"]
    assert layer and {m for c in layer for m in c.mistakes} == {"mha_scaled_by_d_model"}
    assert "which multi_head_attention calls" not in failing_messages(report, "multi_head_attention")
    assert "calls qkv_attention, which fails" not in failing_messages(report, "multi_head_attention")


def test_a_passing_callee_called_otherwise_is_not_blamed(numpy_assignment, graders, tmp_path):
    """With a right softmax that qkv_attention calls with axis=0, is qkv_attention's own mistake named, and no
    mistake of softmax?"""
    path = tmp_path / "columns.py"
    path.write_text(edited(numpy_assignment, ROWS, "return softmax(scores, axis=0) @ v"))
    report = graders(numpy_assignment).grade(path)
    assert report.mistakes() == ["qkv_softmax_over_columns"]
    assert "(in softmax" not in failing_messages(report, "qkv_attention")


def test_nbgraders_hidden_cells_name_mistakes_as_grade_does(numpy_assignment, capsys):
    """In nbgrader's kernel, is the inline layer's own mistake named, and qkv_attention's not said to be the
    layer's (the hidden cells once named any called exercise's mistake)?"""
    from autograder.deliver.routes.nbgrader import grade_in_notebook
    from autograder.grade.deciding import kit_digest

    namespace = namespace_of(
        edited(numpy_assignment, HEAD_CALL, INLINE_HEADS, QKV_SCALE, "scores = scores / np.sqrt(x.shape[-1])")
    )
    name = "multi_head_attention"
    points = numpy_assignment.points[name]
    score = grade_in_notebook(numpy_assignment.name, name, namespace, points=points, kit=kit_digest(numpy_assignment))
    printed = capsys.readouterr().out
    assert score < points
    assert "This looks like a known mistake: Each head divides its scores by sqrt(d_model)" in printed
    assert "(in qkv_attention, which multi_head_attention calls)" not in printed


def test_nbgraders_hidden_cells_give_a_passing_callees_look_alike_as_a_hint(numpy_assignment, capsys):
    """In nbgrader's kernel, with softmax right and qkv_attention scaling by sqrt(d_model) on its own, then a layer
    that passes scale=False: is the layer's own mistake named, not qkv_attention's?"""
    from autograder.deliver.routes.nbgrader import grade_in_notebook
    from autograder.grade.deciding import kit_digest

    namespace = namespace_of(
        edited(
            numpy_assignment,
            HEAD_CALL,
            "heads.append(qkv_attention(x, W_q[:, columns], W_k[:, columns], W_v[:, columns], scale=False))",
        )
    )
    name = "multi_head_attention"
    grade_in_notebook(
        numpy_assignment.name, name, namespace, points=numpy_assignment.points[name], kit=kit_digest(numpy_assignment)
    )
    printed = capsys.readouterr().out
    assert "This looks like a known mistake: The heads' scores are not scaled" in printed
    assert "(in qkv_attention" not in printed
