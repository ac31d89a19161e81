"""The input pipeline: fixed shapes, exact eval coverage with padding, per-host sharding and exact resume."""

import numpy as np
import pytest
import tensorflow as tf
from conftest import NUM_EVAL, SMOKE

from {{ cookiecutter.package_name }} import dataset
from {{ cookiecutter.package_name }}.config import parse_config
from {{ cookiecutter.package_name }}.input_pipeline import InputPipeline, eval_steps


@pytest.fixture
def setup(data_dir):
    params = parse_config([SMOKE], [])
    return dataset.load(params, data_dir)


def context(pipelines=1, pipeline_id=0, replicas=1):
    return tf.distribute.InputContext(pipelines, pipeline_id, replicas)


def test_every_dimension_is_static(setup):
    params, info = setup
    for training, keys in ((True, {"image", "label"}), (False, {"image", "label", "weight", "index"})):
        spec = InputPipeline(params, info, "train", training)(context()).element_spec
        assert set(spec) == keys
        assert all(s.shape.is_fully_defined() for s in spec.values()), spec
        assert spec["image"].shape == (params.global_batch_size, params.image_size, params.image_size, 3)


def test_per_replica_batch_divides_the_global_batch(setup):
    params, info = setup
    spec = InputPipeline(params, info, "train", True)(context(replicas=2)).element_spec
    assert spec["label"].shape == (params.global_batch_size // 2,)


def test_labels_are_within_the_classes(setup):
    params, info = setup
    batch = next(iter(InputPipeline(params, info, "train", True)(context())))
    assert batch["label"].numpy().min() >= 0 and batch["label"].numpy().max() < info.num_classes


@pytest.mark.parametrize("pipelines", [1, 2])
def test_eval_sees_every_example_once_and_pads_with_zero_weight(setup, pipelines):
    params, info = setup
    seen, batches = [], []
    for pipeline_id in range(pipelines):
        ds = InputPipeline(params, info, "eval", False)(context(pipelines, pipeline_id, replicas=pipelines))
        batches.append(list(ds.as_numpy_iterator()))
    assert len({len(b) for b in batches}) == 1, "every pipeline yields the same number of batches"
    for batch in (b for pipeline in batches for b in pipeline):
        seen.extend(batch["index"][batch["weight"] > 0])
        assert (batch["index"][batch["weight"] == 0] == -1).all()
    assert sorted(seen) == list(range(NUM_EVAL))
    assert len(batches[0]) * pipelines == eval_steps(NUM_EVAL, params.global_batch_size, pipelines) * pipelines


def test_eval_steps_cover_the_split():
    assert eval_steps(21, 8) == 3
    assert eval_steps(16, 8) == 2
    assert eval_steps(21, 8, num_input_pipelines=2) == 3  # 11 examples per pipeline, 4 per pipeline per step


def test_two_input_pipelines_read_disjoint_shards(data_dir):
    # Without augmentation, the same source image gives the same bytes, so a shared example would show.
    params = parse_config([SMOKE], ["Params.crop_padding = 0", "Params.random_flip = False"])
    params, info = dataset.load(params, data_dir)
    seen = []
    for pipeline_id in range(2):
        ds = InputPipeline(params, info, "train", True)(context(2, pipeline_id, 2)).take(12)  # 48 examples: one epoch
        seen.append({image.tobytes() for batch in ds.as_numpy_iterator() for image in batch["image"]})
    assert len(seen[0]) == len(seen[1]) == 48 and not seen[0] & seen[1]


def test_resumed_stream_continues_where_the_interrupted_one_stopped(setup):
    params, info = setup
    # 30 steps of 8 cross the 96-example epoch boundary three times.
    full = list(InputPipeline(params, info, "train", True)(context()).take(30).as_numpy_iterator())
    resumed = list(InputPipeline(params, info, "train", True, start_step=17)(context()).take(13).as_numpy_iterator())
    for expected, actual in zip(full[17:], resumed, strict=True):
        np.testing.assert_array_equal(expected["label"], actual["label"])
        np.testing.assert_array_equal(expected["image"], actual["image"])


def test_epochs_are_shuffled_differently(setup):
    params, info = setup
    batches = list(InputPipeline(params, info, "train", True)(context()).take(24).as_numpy_iterator())
    epochs = [np.concatenate([b["label"] for b in batches[i : i + 12]]) for i in (0, 12)]
    assert sorted(epochs[0]) == sorted(epochs[1]) and not np.array_equal(epochs[0], epochs[1])


def test_synthetic_source_has_the_same_spec_and_needs_no_data():
    params = parse_config([SMOKE], ["Params.data_source = 'synthetic'", "Params.num_classes = 3"])
    params, info = dataset.load(params, None)
    for training in (True, False):
        ds = InputPipeline(params, info, "train", training)(context())
        assert all(s.shape.is_fully_defined() for s in ds.element_spec.values())
    assert info.num_classes == 3


def test_missing_data_dir_says_how_to_make_one(tmp_path):
    with pytest.raises(ValueError, match="prepare_data"):
        dataset.load_info(str(tmp_path))
