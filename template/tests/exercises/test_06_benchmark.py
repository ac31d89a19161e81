"""Read the benchmark: which side limits each of the three runs of exercises/06_benchmark.md."""

import pytest
from exercise_answers import answer

from {{ cookiecutter.package_name }}.runtime import benchmark

pytestmark = pytest.mark.points(10)

# The runs of the exercise, as --mode=benchmark measures them (examples/s).
RUNS = {
    "A": {"input_examples_per_sec": 2410, "step_examples_per_sec": 3980, "e2e_examples_per_sec": 2350},
    "B": {"input_examples_per_sec": 9870, "step_examples_per_sec": 1320, "e2e_examples_per_sec": 1290},
    "C": {"input_examples_per_sec": 5020, "step_examples_per_sec": 2700, "e2e_examples_per_sec": 1890},
}


def verdict(run):
    result = run | {
        "feed_ratio": run["input_examples_per_sec"] / run["step_examples_per_sec"],
        "efficiency": run["e2e_examples_per_sec"] / run["step_examples_per_sec"],
        "mfu": 0.0,
    }
    return benchmark.bottleneck(result).split("-bound")[0].lower()


def test_each_run_is_read_as_the_benchmark_reads_it():
    given = answer("BOTTLENECKS", exercise=6)
    assert set(given) == set(RUNS), f"BOTTLENECKS needs an answer for runs {sorted(RUNS)}"
    for name, run in RUNS.items():
        assert given[name] == verdict(run), f"run {name} is not {given[name]}-bound: read its feed ratio again"
