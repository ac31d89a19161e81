"""The text task's own parts: the exported signature that takes raw strings, and the vocabulary it needs."""

import shutil

import numpy as np
import pytest
import tensorflow as tf
from conftest import SMOKE, run_main, setup

from {{ cookiecutter.package_name }}.runtime import modes
from {{ cookiecutter.package_name }}.runtime.config import parse_config
from {{ cookiecutter.package_name }}.runtime.errors import InputError

TEXTS = ["The battery is not very good, but the screen is great!", "", "unseen wörds only"]


def test_export_serves_raw_strings_like_the_trained_model(trained, data_dir):
    run_main(trained, data_dir, "--mode=export")
    serve = tf.saved_model.load(str(trained / "export" / "4")).signatures["serving_default"]
    served = serve(texts=tf.constant(TEXTS))

    params, task, _ = setup(data_dir)
    run = modes.build_trainer(task, params, str(trained), tpu=None)
    assert run.restore()
    expected = tf.nn.softmax(run.model(task.tokenizer(tf.constant(TEXTS)), training=False)).numpy()
    np.testing.assert_allclose(served["probabilities"].numpy(), expected, atol=1e-5)
    assert {name.decode() for name in served["class_name"].numpy()} <= set(task.class_names)


def test_a_data_dir_without_its_vocabulary_says_how_to_make_one(tmp_path, data_dir):
    copy = shutil.copytree(data_dir, tmp_path / "data")
    (copy / "vocabulary.txt").unlink()
    with pytest.raises(InputError, match="has no vocabulary.txt; write the data again with prepare_data"):
        setup(str(copy))


@pytest.mark.parametrize("value", [-0.1, 1.0])
def test_word_dropout_outside_0_to_1_is_refused(value):
    with pytest.raises(InputError, match=r"Task.word_dropout must be at least 0 and below 1"):
        parse_config([SMOKE], ["Task.word_dropout = " + repr(value)])
