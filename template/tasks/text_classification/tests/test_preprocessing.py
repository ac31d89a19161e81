"""Tokenization gives fixed shapes with TF ops alone: eagerly, inside tf.data, and in a traced signature."""

import numpy as np
import tensorflow as tf

from {{ cookiecutter.package_name }} import preprocessing

VOCABULARY = preprocessing.build_vocabulary(["The screen is good.", "the screen is not good", "GOOD!"], max_size=10)
LENGTH = 6


def ids(words):
    return [VOCABULARY.index(word) for word in words]


def test_vocabulary_is_most_frequent_first_with_padding_and_unknown_ahead():
    assert VOCABULARY[:2] == [preprocessing.PAD, preprocessing.UNK]
    assert VOCABULARY[2] == "good" and set(VOCABULARY) >= {"the", "screen", "is", "not", ".", "!"}
    ties = preprocessing.build_vocabulary(["b a", "a b"], max_size=3)
    assert ties == [preprocessing.PAD, preprocessing.UNK, "a"], "ties go alphabetically"


def test_tokenize_lowercases_splits_punctuation_pads_and_truncates():
    tokenizer = preprocessing.Tokenizer(VOCABULARY, LENGTH)
    out = tokenizer(tf.constant(["The screen is GOOD!", "the screen is not good, not good at all"]))
    assert out.dtype == tf.int32 and out.shape == (2, LENGTH)
    np.testing.assert_array_equal(out[0], [*ids(["the", "screen", "is", "good", "!"]), preprocessing.PAD_ID])
    assert out[1].numpy().tolist() == [*ids(["the", "screen", "is", "not", "good"]), preprocessing.UNK_ID], "cut at 6"


def test_shapes_are_static_inside_tf_data_and_in_a_signature():
    tokenizer = preprocessing.Tokenizer(VOCABULARY, LENGTH)
    ds = tf.data.Dataset.from_tensor_slices(["good", "not good at all, really"]).batch(2, drop_remainder=True)
    assert ds.map(tokenizer).element_spec.shape == (2, LENGTH)
    traced = tf.function(tokenizer, input_signature=[tf.TensorSpec([None], tf.string)])
    assert traced.get_concrete_function().structured_outputs.shape.as_list() == [None, LENGTH]
    assert traced(tf.constant(["good"])).shape == (1, LENGTH)
