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
    batch = preprocessing.preprocess_for_eval(img, SIZE)[None]
    return preprocessing.augment(batch, seed, crop_padding, random_flip, 0.0)[0]


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


def test_eval_at_the_configured_size_keeps_the_pixels():
    img = image(SIZE, SIZE)
    np.testing.assert_allclose(preprocessing.preprocess_for_eval(img, SIZE), img.numpy() / 255.0, atol=1e-6)


def test_each_image_of_a_batch_gets_its_own_shift_and_flip_of_itself():
    img = preprocessing.preprocess_for_eval(image(SIZE, SIZE), SIZE).numpy()
    out = preprocessing.augment(
        tf.stack([img] * 32), SEED, crop_padding=2, random_flip=True, max_brightness_delta=0.0
    ).numpy()
    padded = np.pad(img, [(2, 2), (2, 2), (0, 0)], mode="reflect")
    candidates = {
        (dy, dx, flip): np.flip(crop, axis=1) if flip else crop
        for dy in range(5)
        for dx in range(5)
        for flip in (False, True)
        for crop in [padded[dy : dy + SIZE, dx : dx + SIZE]]
    }
    found = [next(key for key, c in candidates.items() if np.array_equal(c, o)) for o in out]
    assert len(set(found)) > 8, "the images of one batch are shifted and flipped differently"
    assert {flip for _, _, flip in found} == {False, True}
