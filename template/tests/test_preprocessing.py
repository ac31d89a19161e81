"""Preprocessing gives fixed shapes and values in [0, 1], eagerly and inside tf.data."""

import numpy as np
import pytest
import tensorflow as tf

from {{ cookiecutter.package_name }} import preprocessing

SIZE = 16
SEED = tf.constant([1, 2], tf.int64)


def image(height, width):
    return tf.constant(np.random.default_rng(0).integers(0, 256, (height, width, 3)), tf.uint8)


def train(img, seed=SEED, crop_padding=2, random_flip=True):
    return preprocessing.preprocess_for_train(img, seed, SIZE, crop_padding, random_flip)


@pytest.mark.parametrize("shape", [(7, 9), (16, 16), (64, 48)])
def test_eval_output_has_a_fixed_shape_and_unit_range(shape):
    out = preprocessing.preprocess_for_eval(image(*shape), SIZE)
    assert out.shape == (SIZE, SIZE, 3) and out.dtype == tf.float32
    assert float(tf.reduce_min(out)) >= 0.0 and float(tf.reduce_max(out)) <= 1.0


@pytest.mark.parametrize("shape", [(7, 9), (64, 48)])
def test_train_output_has_a_fixed_shape_and_unit_range(shape):
    out = train(image(*shape))
    assert out.shape == (SIZE, SIZE, 3) and out.dtype == tf.float32
    assert float(tf.reduce_min(out)) >= 0.0 and float(tf.reduce_max(out)) <= 1.0


def test_shapes_are_static_inside_tf_data():
    # Images of different sizes, as decoding gives them: the static shape after preprocessing is still known.
    ds = tf.data.Dataset.from_tensor_slices(tf.zeros([2, 30, 20, 3], tf.uint8)).map(
        lambda img: tf.image.resize(img, tf.random.uniform([2], 10, 40, tf.int32))
    )
    ds = ds.map(lambda img: tf.cast(img, tf.uint8))
    assert not ds.element_spec.shape.is_fully_defined()
    for fn in (lambda img: preprocessing.preprocess_for_eval(img, SIZE), train):
        mapped = ds.map(fn)
        assert mapped.element_spec.shape == (SIZE, SIZE, 3)
        assert [x.shape for x in mapped] == [(SIZE, SIZE, 3)] * 2


def test_train_augmentation_is_a_function_of_the_seed():
    img = image(SIZE, SIZE)
    np.testing.assert_array_equal(train(img), train(img))
    assert any(not np.array_equal(train(img), train(img, seed=tf.constant([1, s], tf.int64))) for s in range(3, 8))


def test_train_without_augmentation_equals_eval():
    img = image(20, 20)
    plain = train(img, crop_padding=0, random_flip=False)
    np.testing.assert_allclose(plain, preprocessing.preprocess_for_eval(img, SIZE))
