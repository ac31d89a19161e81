"""Export, and predict: serving.classify answers for sentences of one's own, as the model was exported."""

import pytest
from conftest import run_main, setup

from {{ cookiecutter.package_name }} import serving

pytestmark = pytest.mark.points(15)


def test_classify_answers_for_sentences(trained, data_dir):
    assert run_main(trained, data_dir, "--mode=export") is None
    sentences = ["The screen is not very good.", "Great value, and the battery lasts all week!", ""]
    answers = serving.classify(serving.latest_export(str(trained)), [*sentences, sentences[0]])
    assert len(answers) == 4
    class_names = setup(data_dir)[2].class_names
    for name, probability in answers:
        assert name in class_names and 0 < probability <= 1
    assert answers[0][0] == answers[3][0] and answers[0][1] == pytest.approx(answers[3][1]), "the same sentence"
