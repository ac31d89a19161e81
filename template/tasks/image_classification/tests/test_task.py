"""The image task's own parts: the exported signature, and the ResNet reference model."""

import json

import keras
import numpy as np
import pytest
import tensorflow as tf
from conftest import SMOKE, run_main, setup

from {{ cookiecutter.package_name }} import model as model_lib
from {{ cookiecutter.package_name }} import preprocessing
from {{ cookiecutter.package_name }}.runtime import modes
from {{ cookiecutter.package_name }}.runtime.config import build, parse_config
from {{ cookiecutter.package_name }}.runtime.errors import InputError
from {{ cookiecutter.package_name }}.runtime.params import RuntimeParams


def test_export_serves_raw_images_like_the_trained_model(trained, data_dir):
    run_main(trained, data_dir, "--mode=export")
    serve = tf.saved_model.load(str(trained / "export" / "4")).signatures["serving_default"]
    images = tf.constant(np.random.default_rng(0).integers(0, 256, (3, 40, 28, 3)), tf.uint8)
    served = serve(images=images)

    params, task, _ = setup(data_dir)
    run = modes.build_trainer(task, params, str(trained), tpu=None)
    assert run.restore()
    inputs = tf.stack([preprocessing.preprocess_for_eval(image, task.params.image_size) for image in images])
    expected = tf.nn.softmax(run.model(inputs, training=False)).numpy()
    np.testing.assert_allclose(served["probabilities"].numpy(), expected, atol=1e-5)
    assert served["class_name"].numpy()[0].decode() in task.class_names


def test_cpu_config_does_not_compile_with_xla():
    # Measured: XLA makes these convolutions 2-3.5x slower on a CPU (configs/cpu.gin).
    parse_config(["configs/cpu.gin"], [])
    assert not build(RuntimeParams).jit_compile


RESNET = ["--gin_param=build_model.network = @resnet", "--gin_param=resnet.depth = 18"]


def test_the_resnet_reference_trains(tmp_path, data_dir):
    assert run_main(tmp_path, data_dir, "--mode=train", *RESNET) is None
    assert tf.train.latest_checkpoint(str(tmp_path / "checkpoints")).endswith("ckpt-4")


@pytest.mark.slow  # XLA compiles the ResNet step on a CPU for a minute or more
def test_the_resnet_reference_passes_the_check_and_benchmarks(tmp_path, data_dir, capsys):
    assert run_main(tmp_path, data_dir, "--mode=check", *RESNET) == 0
    assert "Pre-flight: 0 of 8 checks failed" in capsys.readouterr().out
    assert run_main(tmp_path, data_dir, "--mode=benchmark", *RESNET) is None
    assert json.loads((tmp_path / "benchmark.json").read_text())["flops_per_example"] > 0


@pytest.mark.parametrize(("depth", "parameters"), [(18, 11_689_512 + 4_224), (50, 25_557_032)])
def test_resnet_has_the_published_parameter_counts(depth, parameters):
    # torchvision's counts for 1000 classes; tensorflow/tpu's ResNet-18 adds a projection to its first block (a 1x1
    # convolution of 64 to 64 channels and its batch norm: 4,224 weights).
    inputs = keras.Input((224, 224, 3))
    model = keras.Model(inputs, model_lib.resnet(inputs, 1000, depth))
    assert sum(w.shape.num_elements() for w in model.trainable_weights) == parameters


@pytest.mark.parametrize("value", [-0.1, 1.0])
def test_max_brightness_delta_outside_0_to_1_is_refused(value):
    with pytest.raises(InputError, match=r"Task.max_brightness_delta must be at least 0 and below 1"):
        parse_config([SMOKE], ["Task.max_brightness_delta = " + repr(value)])
