"""The image task's own parts: the exported signature that takes uint8 images of any size."""

import numpy as np
import tensorflow as tf
from conftest import run_main, setup

from {{ cookiecutter.package_name }} import preprocessing
from {{ cookiecutter.package_name }}.runtime import modes


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
