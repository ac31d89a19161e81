"""An augmentation: random_brightness shifts each image by one value of its own, from its seed, within [0, 1]."""

import numpy as np
import pytest
import tensorflow as tf
from conftest import run_main

from {{ cookiecutter.package_name }} import preprocessing

pytestmark = pytest.mark.points(15)

MAX_DELTA = 0.2


def brightened(seed):
    images = tf.random.stateless_uniform([32, 6, 6, 3], seed=[1, 2])
    return images.numpy(), preprocessing.random_brightness(images, tf.constant(seed), MAX_DELTA).numpy()


def test_one_change_per_image_within_max_delta_and_pixels_in_range():
    images, out = brightened([3, 4])
    assert out.shape == images.shape and out.dtype == np.float32
    assert out.min() >= 0.0 and out.max() <= 1.0
    # Where neither image nor result touches 0 or 1, nothing was clipped: the change is the image's one delta.
    inside = (images > MAX_DELTA) & (images < 1 - MAX_DELTA)
    changes = [(o - i)[m] for i, o, m in zip(images, out, inside, strict=True)]
    assert all(np.ptp(c) < 1e-5 for c in changes), "each image gets one value, added to all of its pixels"
    deltas = np.array([c.mean() for c in changes])
    assert np.abs(deltas).max() <= MAX_DELTA + 1e-6
    assert len(np.unique(deltas)) > 16, "each image draws its own value"
    assert deltas.min() < 0 < deltas.max(), "values come from [-max_delta, max_delta]"


def test_the_seed_decides_the_changes():
    np.testing.assert_array_equal(brightened([3, 4])[1], brightened([3, 4])[1])
    assert not np.array_equal(brightened([3, 4])[1], brightened([5, 6])[1])


def test_training_with_it_on(tmp_path, data_dir):
    assert run_main(tmp_path, data_dir, "--mode=train", f"--gin_param=Task.max_brightness_delta={MAX_DELTA}") is None
