"""TPU-shaped runs on a CPU: the same code on 1, 2 and 8 replicas (MirroredStrategy over logical CPUs)."""

import numpy as np
import pytest
import tensorflow as tf
from conftest import SMOKE

from {{ cookiecutter.package_name }} import dataset, main
from {{ cookiecutter.package_name }}.config import parse_config

REPLICAS = (1, 2, 8)
BINDINGS = [
    "Params.strategy = 'cpu_replicas'",
    "Params.global_batch_size = 16",
    "Params.dropout_rate = 0.0",
    "Params.train_steps = 6",
    "Params.steps_per_execution = 3",
    "Params.checkpoint_every = 100",
]


def trainer(data_dir, model_dir, replicas, *bindings):
    # Strategies over different devices in one process need their own collective keys; TensorFlow's own tests set
    # this base for the same reason (a real run makes one strategy per process).
    tf.distribute.MirroredStrategy._collective_key_base = 1000 * replicas
    params = parse_config([SMOKE], [*BINDINGS, f"Params.cpu_replicas = {replicas}", *bindings])
    params, info = dataset.load(params, data_dir)
    return main.build_trainer(params, str(model_dir), tpu=None), info


@pytest.fixture(scope="module")
def losses(data_dir, tmp_path_factory):
    """The training loss of steps 4-6 on 1 and on 8 replicas, on the same data."""
    result = {}
    for replicas in (1, 8):
        run, info = trainer(data_dir, tmp_path_factory.mktemp(f"r{replicas}"), replicas)
        assert run.strategy.num_replicas_in_sync == replicas
        batches = main.batches(run, info, "train", training=True)
        run.train(batches, 3)
        result[replicas] = run.train(batches, 6)["loss"]
    return result


@pytest.mark.parametrize("replicas", REPLICAS)
def test_each_replica_gets_its_share_of_different_examples(data_dir, tmp_path, replicas):
    run, info = trainer(data_dir, tmp_path, replicas)
    batch = next(main.batches(run, info, "train", training=True))
    images = [t.numpy() for t in run.strategy.experimental_local_results(batch["image"])]
    assert [len(i) for i in images] == [16 // replicas] * replicas
    flat = np.concatenate(images).reshape(16, -1)
    assert len({row.tobytes() for row in flat}) == 16, "no example is fed to two replicas"


def test_losses_on_eight_replicas_agree_with_one(losses):
    # Same data and initial weights; only batch-norm statistics differ (each replica normalises its own share).
    np.testing.assert_allclose(losses[8], losses[1], rtol=0.05)


def test_a_global_batch_that_does_not_divide_among_replicas_is_refused(data_dir, tmp_path):
    with pytest.raises(
        ValueError, match="global batch 12 does not divide among 8 replicas: make Params.global_batch_size"
    ):
        trainer(data_dir, tmp_path, 8, "Params.global_batch_size = 12")
