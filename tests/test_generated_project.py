"""Each task's default project passes its own test suite (fast tier: with this environment's TensorFlow)."""

import time

import pytest
from conftest import PYTHON, run

from scaffold.answers import CHOICES


@pytest.mark.parametrize("task", CHOICES["task"])
def test_default_project_passes_its_own_tests(tmp_path, render, task):
    start = time.perf_counter()
    project = render(tmp_path, task=task)
    generated = time.perf_counter()
    result = run([PYTHON, "-m", "pytest", "-q", "-p", "no:cacheprovider"], cwd=project, timeout=900)
    print(f"{task}: generation {generated - start:.2f} s, generated test suite {time.perf_counter() - generated:.1f} s")
    assert " passed" in result.stdout and "failed" not in result.stdout
