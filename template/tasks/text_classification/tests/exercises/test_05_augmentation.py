"""An augmentation: drop_words turns words, never padding, into [UNK] at the given rate, as its seed decides."""

import numpy as np
import pytest
import tensorflow as tf
from conftest import run_main

from {{ cookiecutter.package_name }} import preprocessing

pytestmark = pytest.mark.points(15)

RATE = 0.3


def ids_with_padding():
    ids = tf.random.stateless_uniform([64, 32], seed=[1, 2], minval=2, maxval=500, dtype=tf.int32)
    lengths = tf.random.stateless_uniform([64, 1], seed=[3, 4], minval=1, maxval=33, dtype=tf.int32)
    return tf.where(tf.range(32) < lengths, ids, preprocessing.PAD_ID)


def dropped(seed, rate=RATE):
    return preprocessing.drop_words(ids_with_padding(), tf.constant(seed), rate).numpy()


def test_words_become_unk_at_the_rate_and_padding_stays():
    ids, out = ids_with_padding().numpy(), dropped([5, 6])
    assert out.shape == ids.shape and out.dtype == np.int32
    is_pad = ids == preprocessing.PAD_ID
    np.testing.assert_array_equal(out[is_pad], preprocessing.PAD_ID)
    changed = out != ids
    assert set(out[changed].tolist()) == {preprocessing.UNK_ID}, "a dropped word becomes [UNK], nothing else"
    assert abs(changed[~is_pad].mean() - RATE) < 0.05, f"{changed[~is_pad].mean():.0%} of words dropped"


def test_the_seed_decides_and_a_rate_of_zero_drops_nothing():
    np.testing.assert_array_equal(dropped([5, 6]), dropped([5, 6]))
    assert not np.array_equal(dropped([5, 6]), dropped([7, 8]))
    np.testing.assert_array_equal(dropped([5, 6], rate=0.0), ids_with_padding().numpy())


def test_training_with_it_on(tmp_path, data_dir):
    assert run_main(tmp_path, data_dir, "--mode=train", f"--gin_param=Task.word_dropout={RATE}") is None
