"""The input pipeline: fixed shapes, exact eval coverage with padding, per-host sharding and exact resume."""

import numpy as np
import pytest
import tensorflow as tf
from conftest import NUM_EVAL, setup
from task_bindings import SYNTHETIC

from {{ cookiecutter.package_name }}.runtime import records


@pytest.fixture
def smoke(data_dir):
    return setup(data_dir)


def context(pipelines=1, pipeline_id=0, replicas=1):
    return tf.distribute.InputContext(pipelines, pipeline_id, replicas)


def pipeline(smoke, split, training, input_context=None, start_step=0):
    params, task, _ = smoke
    return task.input_pipeline(split, training, params.global_batch_size, start_step)(input_context or context())


def test_every_dimension_is_static_and_the_example_batch_has_the_same_spec(smoke):
    params, task, _ = smoke
    example = task.example_batch(params.global_batch_size)
    for training, extra in ((True, set()), (False, {"weight", "index"})):
        spec = pipeline(smoke, "train", training).element_spec
        assert set(spec) == set(example) | extra and "inputs" in spec
        assert all(s.shape.is_fully_defined() for s in tf.nest.flatten(spec)), spec
        for key in example:
            assert tf.nest.map_structure(lambda s: (s.shape, s.dtype), spec[key]) == tf.nest.map_structure(
                lambda t: (t.shape, t.dtype), example[key]
            ), key


def test_per_replica_batch_divides_the_global_batch(smoke):
    params = smoke[0]
    spec = pipeline(smoke, "train", True, context(replicas=2)).element_spec
    assert spec["label"].shape == (params.global_batch_size // 2,)


def test_labels_are_within_the_classes(smoke):
    batch = next(iter(pipeline(smoke, "train", True)))
    assert batch["label"].numpy().min() >= 0 and batch["label"].numpy().max() < smoke[2].num_classes


@pytest.mark.parametrize("pipelines", [1, 2])
def test_eval_sees_every_example_once_and_pads_with_zero_weight(smoke, pipelines):
    params = smoke[0]
    seen, batches = [], []
    for pipeline_id in range(pipelines):
        ds = pipeline(smoke, "eval", False, context(pipelines, pipeline_id, replicas=pipelines))
        batches.append(list(ds.as_numpy_iterator()))
    assert len({len(b) for b in batches}) == 1, "every pipeline yields the same number of batches"
    for batch in (b for pipeline in batches for b in pipeline):
        seen.extend(batch["index"][batch["weight"] > 0])
        assert (batch["index"][batch["weight"] == 0] == -1).all()
    assert sorted(seen) == list(range(NUM_EVAL))
    assert len(batches[0]) == records.eval_steps(NUM_EVAL, params.global_batch_size, pipelines)


def test_eval_steps_cover_the_split():
    assert records.eval_steps(21, 8) == 3
    assert records.eval_steps(16, 8) == 2
    assert records.eval_steps(21, 8, num_input_pipelines=2) == 3  # 11 examples per pipeline, 4 per pipeline per step


def test_two_input_pipelines_read_disjoint_shards(smoke):
    info = smoke[2]
    seen = []
    for pipeline_id in range(2):
        stream = records.train_records(info, "train", context(2, pipeline_id, 2), 4, 0, seed=0, shuffle_buffer=64)
        seen.append({element["record"] for element in stream.take(48).as_numpy_iterator()})  # one epoch: 48 each
    assert len(seen[0]) == len(seen[1]) == 48 and not seen[0] & seen[1]


def test_resumed_stream_continues_where_the_interrupted_one_stopped(smoke):
    # 30 steps of 8 cross the 96-example epoch boundary twice; the resumed stream starts mid-epoch, at step 17.
    full = list(pipeline(smoke, "train", True).take(30).as_numpy_iterator())
    resumed = list(pipeline(smoke, "train", True, start_step=17).take(13).as_numpy_iterator())
    for expected, actual in zip(full[17:], resumed, strict=True):
        np.testing.assert_array_equal(expected["label"], actual["label"])
        tf.nest.map_structure(np.testing.assert_array_equal, expected["inputs"], actual["inputs"])


def test_epochs_are_shuffled_differently(smoke):
    batches = list(pipeline(smoke, "train", True).take(24).as_numpy_iterator())
    epochs = [np.concatenate([b["label"] for b in batches[i : i + 12]]) for i in (0, 12)]
    assert sorted(epochs[0]) == sorted(epochs[1]) and not np.array_equal(epochs[0], epochs[1])


def test_synthetic_source_has_the_same_spec_and_needs_no_data():
    params, task, _ = setup(None, *SYNTHETIC)
    for training in (True, False):
        ds = records.input_fn(task, params, "train", training)(context())
        assert all(s.shape.is_fully_defined() for s in tf.nest.flatten(ds.element_spec))
    assert task.class_names == ("class_0", "class_1", "class_2")


def test_missing_data_dir_says_how_to_make_one(tmp_path):
    with pytest.raises(ValueError, match="prepare_data"):
        records.load_info(str(tmp_path))
