"""The default project passes its own test suite (fast tier: with this environment's TensorFlow)."""

import time

from conftest import PYTHON, run


def test_default_project_passes_its_own_tests(tmp_path, render):
    start = time.perf_counter()
    project = render(tmp_path)
    generated = time.perf_counter()
    result = run([PYTHON, "-m", "pytest", "-q", "-p", "no:cacheprovider"], cwd=project, timeout=600)
    print(f"generation {generated - start:.2f} s, generated test suite {time.perf_counter() - generated:.1f} s")
    assert " passed" in result.stdout and "failed" not in result.stdout
