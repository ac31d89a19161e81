"""A batch for a v5e-8 and a v3-8: replicas per TPU type, and the smallest batch the pre-flight passes on each."""

import pytest
from exercise_answers import answer

from {{ cookiecutter.package_name }}.runtime import preflight

pytestmark = pytest.mark.points(15)

# One replica per TPU core: a v5e chip has one core, a v3 chip two, a v4 chip two that act as one (megacore).
REPLICAS = {"v5e-1": 1, "v5e-8": 8, "v3-8": 8, "v4-8": 4}


def test_replicas_per_tpu_type():
    given = answer("REPLICAS", exercise=7)
    for tpu, replicas in REPLICAS.items():
        assert given.get(tpu) == replicas, f"a {tpu} does not run {given.get(tpu)} replicas: count its cores"


@pytest.mark.parametrize("tpu", list(REPLICAS))
def test_the_smallest_batch_that_the_preflight_passes(tpu):
    batch = answer("TPU_BATCHES", exercise=7).get(tpu)
    assert batch, f"TPU_BATCHES has no batch for a {tpu}"
    target = preflight.Target("tpu", REPLICAS[tpu])
    result = preflight.batch_split(batch, target)
    assert result.status == preflight.PASS, f"on a {tpu}: {result.detail}; {result.fix}"
    passing = [b for b in range(1, batch) if preflight.batch_split(b, target).status == preflight.PASS]
    assert not passing, f"{passing[0]} passes on a {tpu} too: find the smallest"
