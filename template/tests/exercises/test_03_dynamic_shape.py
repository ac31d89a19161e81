"""A dynamic shape that only a TPU would mind: the pre-flight finds every dimension of every batch known."""

import pytest
from conftest import setup

from {{ cookiecutter.package_name }}.runtime import preflight, records

pytestmark = pytest.mark.points(15)


def test_every_batch_has_a_static_shape(data_dir):
    params, task, _ = setup(data_dir)
    datasets = {split: records.input_fn(task, params, split, split == "train")() for split in records.SPLITS}
    result = preflight.static_shapes(datasets)
    assert result.status == preflight.PASS, f"{result.detail}; {result.fix}"
