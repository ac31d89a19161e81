"""What keeps the shapes static: exercises/answers.py names what fixes each dimension of a batch."""

import pytest
from exercise_answers import answer

pytestmark = pytest.mark.points(10)

# Names that fix the batch dimension, the size of each example, or that help without fixing one alone.
BATCH = {"drop_remainder"}
{% if cookiecutter.task == 'image_classification' %}
SIZE = {"image_size", "resize", "preprocess_for_eval", "ensure_shape"}
{% else %}
SIZE = {"sequence_length", "to_tensor", "Tokenizer", "ensure_shape"}
{% endif %}
ALSO_RIGHT = {"get_per_replica_batch_size", "batch"}


def test_the_names_that_fix_the_shapes():
    given = answer("STATIC_SHAPES", exercise=2)
    assert isinstance(given, (set, list, tuple)), "STATIC_SHAPES is a set of names, e.g. {'name', 'other_name'}"
    # Names as they may be copied from the code: tf.ensure_shape, drop_remainder=True.
    named = {str(name).removeprefix("tf.").split("=")[0].strip() for name in given}
    assert named & BATCH, "name what fixes the batch dimension, even for the last, smaller batch of a split"
    assert named & SIZE, "name what gives every example of a batch the same size"
    wrong = named - BATCH - SIZE - ALSO_RIGHT
    assert not wrong, f"{sorted(wrong)} fix no dimension of a batch"
