"""Does the feedback's model decide rightly what a student is told: each exercise's state, the points as they
read, which checks to look at and in what order, what is said once, and where each check and note belongs?

markdown.py and page.py only render these decisions (tests/deliver/feedback/test_markdown.py, test_page.py).
"""

import pytest

from autograder.deliver.feedback.model import (
    FULL,
    NO_EXPLANATION,
    NONE,
    NOT_STARTED,
    OTHER,
    PARTIAL,
    SAME_FAILURE,
    ZERO,
    Exercise,
    carried_text,
    cases_text,
    check_cost,
    feedback,
    hidden_note,
    loses,
    lost_text,
    percent,
    points,
    score_text,
    share,
    state,
)
from autograder.results.read import CheckRecord, ExercisePoints, Results


def check(title="a check", exercise="split_heads", passed=False, visible=False, **fields) -> CheckRecord:
    return CheckRecord(exercise, title, visible, passed, fields.pop("message", ""), **fields)


def results(**fields) -> Results:
    return Results(graded=fields.pop("graded", True), reason=fields.pop("reason", ""), **fields)


# ------------------------------------------------------------------ how points read


@pytest.mark.parametrize(
    "score, top, expected",
    [
        (3, 3, FULL),
        (3 - 1e-12, 3, FULL),  # a float sum's last digit is not a lost point
        (2.9999, 3, PARTIAL),
        (1e-4, 3, PARTIAL),
        (0, 3, ZERO),
        (None, 3, ZERO),
        (0, 0, NONE),
        (1, None, NONE),
        (0, -1, NONE),
    ],
)
def test_the_state_of_a_score(score, top, expected):
    """Is a score full, partial, zero, or one with no points to earn, within a float's rounding of its maximum?"""
    assert state(score, top) == expected


def test_the_share_is_bounded_and_rounded_down():
    """Is the share between 0 and 100%, 0 where there is no maximum, and 100% only for full marks?"""
    assert (percent(5, 4), percent(-1, 4), percent(None, 4), percent(1, 0)) == (100.0, 0.0, 0.0, 0.0)
    assert percent(1, 3) == pytest.approx(100 / 3, abs=1e-12)
    assert (share(39.9999, 40), share(40, 40), share(32.9, 40), share(1, None)) == ("99%", "100%", "82%", "0%")
    assert share(0.57, 1) == "57%"  # 100 * 0.57 is 56.99999999999999 in floats: still 57%, not 56%


@pytest.mark.parametrize(
    "value, text",
    [(37.5, "37.5"), (40.0, "40"), (2 / 3, "0.67"), (0.001, "0"), (-0.001, "0"), (None, "–"), (1.10, "1.1")],
)
def test_points_read_with_two_decimals_at_most(value, text):
    """Do points read with at most two decimals, no trailing zeros, never "-0", and "–" for none?"""
    assert points(value) == text


def test_a_score_beside_its_maximum_never_reads_as_it_or_as_zero_when_it_is_neither():
    """Does 39.9999 of 40 read 39.9999 (not 40), 0.001 of 2 read 0.001 (not 0), and a round score as it is?"""
    assert score_text(39.9999, 40) == "39.9999"
    assert score_text(0.001, 2) == "0.001"
    assert (score_text(40, 40), score_text(0, 40), score_text(31.2, 40), score_text(37.371429, 40)) == (
        "40",
        "0",
        "31.2",
        "37.37",
    )


def test_a_tiny_loss_reads_with_its_digits():
    """Does a check that lost 0.0004 points say so, rather than "−0"?"""
    assert lost_text(check(score=0.9996, max_score=1)) == "0.0004"
    assert lost_text(check(score=0.75, max_score=1)) == "0.25"
    assert lost_text(check(passed=True, score=1, max_score=1)) == "0"


# ------------------------------------------------------------------ which checks a student must look at


def test_a_check_to_look_at_failed_or_cost_points():
    """Is a check to look at one that failed (a notebook check, a gate) or lost points, and no other?"""
    assert loses(check(passed=False, visible=True))
    assert loses(check(passed=True, score=0.5, max_score=1))
    assert loses(check(passed=False, score=0, max_score=0))  # a gate
    assert not loses(check(passed=True, score=1, max_score=1))
    assert not loses(check(passed=True, score=1 - 1e-12, max_score=1))


def test_an_exercises_failed_checks_put_the_hidden_ones_first():
    """Are the hidden checks (they carry the points) listed before the notebook's, each in its own order?"""
    notebook = check("the notebook's example", visible=True)
    first = check("first hidden", score=0, max_score=1, mistakes=("no_transpose",))
    second = check("second hidden", score=0.5, max_score=1, mistakes=("no_transpose", "wrong_axis"))
    passed = check("passed", passed=True, score=1, max_score=1, mistakes=("never_shown",))
    exercise = Exercise("split_heads", 0.5, 3, False, "exercise-1", checks=[notebook, first, passed, second])
    assert exercise.failed == [first, second, notebook]
    assert exercise.mistakes == ["no_transpose", "wrong_axis"]
    assert exercise.to_fix and exercise.state == PARTIAL


def test_an_exercise_to_fix():
    """Is an exercise to fix when a check failed or its cell did not run, not otherwise, and not started before all?"""
    done = Exercise("tokenize", 2, 2, False, "exercise-1", checks=[check(passed=True, score=2, max_score=2)])
    assert not done.to_fix and done.state == FULL
    done.did_not_run = True
    assert done.to_fix
    untouched = Exercise("encode", 0, 3, True, "exercise-2")
    assert untouched.state == NOT_STARTED and not untouched.to_fix


def test_what_the_hidden_checks_also_cover():
    """Are the hidden titles no hidden check in the results carries the ones left, a notebook check's title aside?"""
    exercise = Exercise(
        "tokenize",
        1,
        2,
        False,
        "exercise-1",
        checks=[check("splits", passed=True), check("keeps case", visible=True)],
        hidden_titles=["splits", "keeps case", "drops punctuation"],
    )
    assert exercise.untested_titles == ["keeps case", "drops punctuation"]


def test_error_carried_forward_is_said_once_per_name():
    """Does an exercise graded with the reference's callees name each once, and say nothing where none stood in?"""
    exercise = Exercise(
        "MultiHeadAttention",
        8,
        8,
        False,
        "exercise-1",
        checks=[check(carried=("split_heads",)), check(carried=("split_heads", "combine_heads"))],
    )
    assert exercise.carried == ["split_heads", "combine_heads"]
    assert carried_text(exercise) == (
        "MultiHeadAttention graded with the reference's split_heads and combine_heads, since yours fail their own "
        "checks: its points do not count that mistake twice"
    )
    assert carried_text(Exercise("tokenize", 2, 2, False, "exercise-2", checks=[check()])) == ""


# ------------------------------------------------------------------ what is said of a failed check


def test_a_message_is_shown_where_visible_or_asked_and_said_once():
    """Is a hidden check's message held back unless show_hidden, and a failure already said replaced by a reference?"""
    hidden = check("hidden", message="failed 2 of 5 cases. First failure [x]: got 1, expected 2")
    again = check("again", message="failed 1 of 1 case. First failure: got 1, expected 2")
    other = check("other", message="got 3, expected 4")
    notebook = check("notebook", visible=True, message="got 1, expected 2")
    closed = feedback(results(checks=[hidden, notebook]))
    said: set[str] = set()
    assert closed.message_of(hidden, said) == "" and said == set()
    assert closed.message_of(notebook, said) == "got 1, expected 2"
    opened = feedback(results(checks=[hidden, again, other]), show_hidden=True)
    said = set()
    assert opened.message_of(hidden, said) == hidden.message
    assert opened.message_of(again, said) == SAME_FAILURE
    assert opened.message_of(other, said) == "got 3, expected 4"
    assert opened.message_of(check("empty", message=""), said) == ""


def test_hidden_notes_say_when_the_details_come():
    """Does a held-back check say when its details are shown, by Gradescope's visibility?"""
    assert hidden_note(check(visibility="after_due_date")) == "details after the due date"
    assert hidden_note(check(visibility="after_published")) == "details once grades are published"
    assert hidden_note(check(visibility="hidden")) == "details not shown"


def test_cases_and_costs_as_they_read():
    """Does a check say its cases in words, and its cost: points lost, a gate's whole exercise, or none?"""
    assert (cases_text(check(cases=(0, 1))), cases_text(check(cases=(3, 5))), cases_text(check())) == (
        "0 of 1 case passed",
        "3 of 5 cases passed",
        "",
    )
    assert check_cost(check(score=1.2, max_score=2)) == "−0.8 of 2"
    assert check_cost(check(score=0, max_score=0)) == "all of the exercise's points"
    assert check_cost(check(visible=True)) == "notebook check"


# ------------------------------------------------------------------ the whole feedback


def test_each_check_and_note_reaches_its_exercise():
    """Does a check without an exercise go to "(other checks)", a loading note mark the exercise its cell defines,
    and the results' hidden summary and group note reach their exercise?"""
    read = results(
        exercises=[ExercisePoints("split_heads", 0, 3), ExercisePoints("encode", 0, 3, not_started=True)],
        checks=[check(exercise="split_heads"), check(exercise="")],
        notes=[
            "the cell that defines split_heads (code cell 25) raised SyntaxError: '(' was never closed",
            "code cell 4 raised NameError: name 'np' is not defined",
            "the cell that defines helper (code cell 9) raised ValueError",
        ],
        hidden_titles={"encode": ["pads on the right"]},
        hidden_cases={"encode": 4},
        cluster_notes={"split_heads": "Look at the order of the axes."},
    )
    fb = feedback(read)
    assert [(e.name, e.anchor) for e in fb.exercises] == [
        ("split_heads", "exercise-1"),
        ("encode", "exercise-2"),
        (OTHER, "exercise-3"),
    ]
    split, encode, other = fb.exercises
    assert split.did_not_run and not encode.did_not_run and not other.did_not_run
    assert split.note == "Look at the order of the axes." and encode.note == ""
    assert (encode.hidden_titles, encode.hidden_cases, encode.state) == (["pads on the right"], 4, NOT_STARTED)
    assert [e.name for e in fb.to_fix] == ["split_heads", OTHER]


def test_known_mistakes_with_their_exercises_and_the_loose_ones_last():
    """Is each known mistake named once with the exercises whose failed checks name it, one named on no failed
    check listed with none, and one without a recorded explanation said to have none?"""
    read = results(
        checks=[
            check(exercise="split_heads", mistakes=("no_transpose",)),
            check(exercise="MultiHeadAttention", mistakes=("no_transpose",)),
            check(exercise="tokenize", passed=True, mistakes=("passed_mistake",)),
        ],
        mistakes=["no_transpose", "passed_mistake", "from_the_results"],
        explanations={"no_transpose": "Transpose after the reshape."},
    )
    fb = feedback(read)
    assert fb.mistakes == [
        ("no_transpose", ["split_heads", "MultiHeadAttention"]),
        ("passed_mistake", []),
        ("from_the_results", []),
    ]
    assert fb.explanation("no_transpose") == "Transpose after the reshape."
    assert fb.explanation("from_the_results") == NO_EXPLANATION


def test_the_headline_the_tally_and_the_details():
    """Does the headline name what it can, the tally count the exercises by state, and the details leave out empties?"""
    read = results(
        assignment="mha",
        device="cpu",
        exercises=[
            ExercisePoints("a", 2, 2),
            ExercisePoints("b", 1, 2),
            ExercisePoints("c", 0, 2),
            ExercisePoints("d", 0, 2, not_started=True),
            ExercisePoints("e", 0, 0),
        ],
    )
    fb = feedback(read, student="Ada\nLovelace")
    assert fb.headline == "mha feedback for Ada Lovelace"  # one line, whatever the name held
    assert fb.tally == "4 exercises: 1 with full marks, 1 partial, 1 with no points, 1 not started"
    assert fb.details == [("assignment", "mha"), ("device", "cpu")]
    one = feedback(results(exercises=[ExercisePoints("a", 2, 2)]))
    assert one.headline == "Feedback" and one.tally == "1 exercise: 1 with full marks, 0 partial, 0 with no points"
    assert feedback(results(assignment="mha")).headline == "mha feedback"
