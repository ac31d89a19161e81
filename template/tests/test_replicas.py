"""TPU-shaped runs on a CPU: the same code on 1, 2 and 8 replicas (MirroredStrategy over logical CPUs)."""

import keras
import numpy as np
import pytest
import tensorflow as tf
from conftest import setup

from {{ cookiecutter.package_name }}.runtime import modes
from {{ cookiecutter.package_name }}.runtime.errors import InputError

REPLICAS = (1, 2, 8)
BINDINGS = [
    "Runtime.strategy = 'cpu_replicas'",
    "Runtime.global_batch_size = 16",
    "Runtime.train_steps = 6",
    "Runtime.steps_per_execution = 3",
    "Runtime.checkpoint_every = 100",
]


def trainer(data_dir, model_dir, replicas, *bindings):
    # Strategies over different devices in one process need their own collective keys; TensorFlow's own tests set
    # this base for the same reason (a real run makes one strategy per process).
    tf.distribute.MirroredStrategy._collective_key_base = 1000 * replicas
    params, task, _ = setup(data_dir, *BINDINGS, f"Runtime.cpu_replicas = {replicas}", *bindings)
    return modes.build_trainer(task, params, str(model_dir), tpu=None), task


def loss_of_steps_4_to_6(data_dir, model_dir, replicas):
    run, task = trainer(data_dir, model_dir, replicas)
    assert run.strategy.num_replicas_in_sync == replicas
    for layer in run.model._flatten_layers():
        if isinstance(layer, keras.layers.Dropout):
            layer.rate = 0.0  # masks are drawn per replica: with them, N replicas see other noise than 1
    batches = modes.batches(run, task, "train", training=True)
    run.train(batches, 3)
    return run.train(batches, 6)["loss"]


@pytest.fixture(scope="module")
def one_replica(data_dir, tmp_path_factory):
    return loss_of_steps_4_to_6(data_dir, tmp_path_factory.mktemp("r1"), 1)


@pytest.mark.parametrize("replicas", REPLICAS)
def test_each_replica_gets_its_share_of_different_examples(data_dir, tmp_path, replicas):
    run, task = trainer(data_dir, tmp_path, replicas)
    batch = next(modes.batches(run, task, "train", training=True))
    inputs = [t.numpy() for t in run.strategy.experimental_local_results(batch["inputs"])]
    assert [len(i) for i in inputs] == [16 // replicas] * replicas
    flat = np.concatenate(inputs).reshape(16, -1)
    assert len({row.tobytes() for row in flat}) == 16, "no example is fed to two replicas"


@pytest.mark.slow  # training on several replicas twice over: the fast tier checks their shares of the batch
@pytest.mark.parametrize("replicas", [2, 8])
def test_losses_on_several_replicas_agree_with_one(data_dir, tmp_path, one_replica, replicas):
    # Same data and initial weights; only per-replica statistics differ (a batch-normalizing network sees each
    # replica's share alone).
    np.testing.assert_allclose(loss_of_steps_4_to_6(data_dir, tmp_path, replicas), one_replica, rtol=0.05)


def test_xla_on_replicated_cpus_is_refused_before_the_model_is_built(data_dir, tmp_path):
    with pytest.raises(InputError, match="jit_compile = True cannot run a step replicated over CPUs .* = False.$"):
        trainer(data_dir, tmp_path, 2, "Runtime.jit_compile = True")


def test_a_global_batch_that_does_not_divide_among_replicas_is_refused(data_dir, tmp_path):
    with pytest.raises(
        ValueError, match="global batch 12 does not divide among 8 replicas: make Runtime.global_batch_size"
    ):
        trainer(data_dir, tmp_path, 8, "Runtime.global_batch_size = 12")
