"""Reads exercises/answers.py for the exercises' tests."""

import runpy
from pathlib import Path

import pytest

ANSWERS = Path(__file__).resolve().parents[2] / "exercises" / "answers.py"


def answer(name, exercise):
    """The value that exercises/answers.py gives `name`; fails the test, saying where to write it, if it gives none."""
    found = runpy.run_path(str(ANSWERS)).get(name)
    if found is None:
        pytest.fail(f"exercises/answers.py has no {name} yet: write it there, as exercise {exercise} asks.")
    return found
