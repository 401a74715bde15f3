"""The exercises' checks in CPython: each fails on its starter code with a sentence saying
what is wrong, passes on its solution, and runs from the source the page ships."""

import contextlib
import io
import json

import pytest

from pages import exercises

NUMBERS = [e.number for e in exercises.EXERCISES]


def ran(code: str) -> dict:
    """The namespace after ``code`` runs, as in the browser: an exception ends it, not the check."""
    namespace: dict = {"__name__": "__main__"}
    with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(Exception):
        exec(code, namespace)
    return namespace


def shipped_verdict(exercise, code: str) -> list:
    """The verdict of the check's source as the page runs it, after ``code``."""
    namespace = ran(code)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(exercise.check_source(), namespace)
    return json.loads(out.getvalue())


def test_the_chapters_three_exercises_are_there():
    assert NUMBERS == ["3.1", "3.2", "3.3"]


@pytest.mark.parametrize("number", NUMBERS)
def test_the_starter_fails_with_a_sentence(number):
    exercise = exercises.by_number(number)
    result, sentence = exercise.check(ran(exercise.starter))
    assert result == "fail"
    assert sentence.endswith(".") and len(sentence) < 200
    assert shipped_verdict(exercise, exercise.starter) == [result, sentence]


@pytest.mark.parametrize("number", NUMBERS)
def test_the_solution_passes(number):
    exercise = exercises.by_number(number)
    assert exercise.solution != exercise.starter
    result, sentence = exercise.check(ran(exercise.solution))
    assert (result, sentence.split(":")[0]) == ("pass", "Right")
    assert shipped_verdict(exercise, exercise.solution) == [result, sentence]


def test_the_verdicts_say_what_is_wrong():
    wide = exercises.by_number("3.2")
    assert wide.check(ran(wide.starter))[1] == (
        "Your output has shape (6, 4); the exercise wants (6, 2)."
    )
    transfer = exercises.by_number("3.1")
    assert "W_query has shape (2, 3)" in transfer.check(ran(transfer.starter))[1]
    swapped = transfer.solution.replace("layer_q.T, layer_k.T", "layer_k.T, layer_q.T")
    assert "differs from v2's" in transfer.check(ran(swapped))[1]
    gpt2 = exercises.by_number("3.3")
    assert gpt2.check(ran(gpt2.solution))[1].endswith(
        "2,360,064 parameters in the query, key, value and output projections."
    )


def test_an_unknown_exercise_is_named():
    with pytest.raises(ValueError, match=r"no exercise '9\.9'"):
        exercises.by_number("9.9")
