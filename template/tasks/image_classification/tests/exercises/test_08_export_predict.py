"""Export, and predict: serving.classify answers for image files and arrays of any size, as the model was exported."""

import pytest
import tensorflow as tf
from conftest import run_main, setup

from {{ cookiecutter.package_name }} import serving, shapes

pytestmark = pytest.mark.points(15)


def test_classify_answers_for_files_and_arrays(trained, data_dir, tmp_path):
    assert run_main(trained, data_dir, "--mode=export") is None
    images, _ = shapes.generate(2, image_size=40, seed=5)
    path = tmp_path / "mine.png"
    path.write_bytes(tf.io.encode_png(images[0]).numpy())
    answers = serving.classify(serving.latest_export(str(trained)), [images[0], str(path), images[1][:30]])
    assert len(answers) == 3
    class_names = setup(data_dir)[2].class_names
    for name, probability in answers:
        assert name in class_names and 0 < probability <= 1
    assert answers[0][0] == answers[1][0] and answers[0][1] == pytest.approx(answers[1][1]), "a file and its pixels"
