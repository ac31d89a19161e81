"""The embedded reviews and the folder and CSV converters write what training reads, and refuse bad input."""

import numpy as np
import pytest
import tensorflow as tf
from conftest import NUM_EVAL, setup

from {{ cookiecutter.package_name }} import prepare_data, preprocessing, reviews
from {{ cookiecutter.package_name }}.runtime import records


def test_reviews_are_deterministic_and_cover_every_class():
    texts, labels = reviews.generate(300, seed=3)
    again, same_labels = reviews.generate(300, seed=3)
    assert texts == again and np.array_equal(labels, same_labels)
    assert set(labels) == set(range(len(reviews.CLASS_NAMES)))
    assert all(isinstance(t, str) and t for t in texts)


def test_word_order_carries_the_label():
    # The same adjective reads the other way under a negator: a bag of words cannot tell these apart.
    texts, labels = reviews.generate(5000, seed=1)

    def positive_share(has):
        chosen = [label >= 3 for text, label in zip(texts, labels, strict=True) if has(text.lower())]
        return sum(chosen) / len(chosen)

    plain = positive_share(lambda text: " good" in text and "not" not in text and "never" not in text)
    negated = positive_share(lambda text: "not good" in text)
    assert plain - negated > 0.3, (plain, negated)


def test_embedded_dataset_has_its_index_labels_and_vocabulary(data_dir):
    info = records.load_info(data_dir)
    assert info.class_names == reviews.CLASS_NAMES
    assert info.num_examples("train") == 96 and info.num_examples("eval") == NUM_EVAL
    vocabulary = (tf.io.gfile.GFile(f"{data_dir}/{preprocessing.VOCABULARY_FILE}").read()).splitlines()
    assert vocabulary[:2] == [preprocessing.PAD, preprocessing.UNK] and len(vocabulary) > 10


def write_folder(root, classes):
    for name, texts in classes.items():
        (root / name).mkdir(parents=True)
        for i, text in enumerate(texts):
            (root / name / f"{i:03d}.txt").write_text(text, encoding="utf-8")


def convert(*args):
    prepare_data.main([str(a) for a in args])


def test_text_folder_converts_with_a_stable_split_and_trains(tmp_path):
    write_folder(tmp_path / "texts", {"bad": [f"bad {i}" for i in range(20)], "good": [f"good {i}" for i in range(20)]})
    for out in ("a", "b"):
        convert("--text_dir", tmp_path / "texts", "--output_dir", tmp_path / out, "--eval_fraction=0.3")
    infos = [records.load_info(str(tmp_path / out)) for out in ("a", "b")]
    assert infos[0].class_names == ("bad", "good")
    assert infos[0].num_examples("train") + infos[0].num_examples("eval") == 40
    assert records.read_keys(infos[0].files("eval")) == records.read_keys(infos[1].files("eval")), "a stable split"
    _, task, _ = setup(str(tmp_path / "a"))
    batch = next(iter(task.input_pipeline("train", True, 8)(tf.distribute.InputContext())))
    assert batch["inputs"].shape == (8, task.params.sequence_length) and set(batch["label"].numpy()) <= {0, 1}


def test_csv_converts_with_named_columns(tmp_path):
    rows = "".join(f'"it is {"not " * (i % 2)}good, {i}",{"neg" if i % 2 else "pos"},x\n' for i in range(30))
    (tmp_path / "r.csv").write_text("review,stars,other\n" + rows, encoding="utf-8")
    columns = ["--text_column", "review", "--label_column", "stars"]
    convert("--csv", tmp_path / "r.csv", *columns, "--output_dir", tmp_path / "d")
    info = records.load_info(str(tmp_path / "d"))
    assert info.class_names == ("neg", "pos") and info.num_examples("train") + info.num_examples("eval") == 30
    assert records.read_keys(info.files("train"))[0].startswith("r.csv:")


def refused(capsys, *args):
    with pytest.raises(SystemExit) as stop:
        convert(*args)
    assert stop.value.code == 2
    return capsys.readouterr().err


def test_bad_files_and_empty_classes_stop_the_conversion_or_are_skipped(tmp_path, capsys):
    texts = {"good": [f"fine {i}" for i in range(10)], "bad": [f"awful {i}" for i in range(10)], "owls": []}
    texts["bad"][1] = "   "
    write_folder(tmp_path / "texts", texts)
    (tmp_path / "texts" / "good" / "latin1.txt").write_bytes("caf\xe9".encode("latin-1"))
    (tmp_path / "texts" / "good" / "notes.md").write_text("not an example")
    args = ["--text_dir", tmp_path / "texts", "--output_dir", tmp_path / "out"]
    error = refused(capsys, *args)
    assert (
        "has 2 files that are empty or not UTF-8 (bad/001.txt, good/latin1.txt) and 1 class folder without texts "
        "(owls): remove them, or pass --skip_bad_files to leave them out." in error
    )
    assert not (tmp_path / "out").exists(), "nothing is written when it stops"
    convert(*args, "--skip_bad_files")
    assert "Skipped 2 files that are empty or not UTF-8" in capsys.readouterr().err
    assert (tmp_path / "out" / "labels.txt").read_text() == "bad\ngood\n"


def test_a_csv_without_the_column_or_with_bad_rows_is_refused(tmp_path, capsys):
    good = "".join(f"review {i},{'pos' if i % 2 else 'neg'}\n" for i in range(40)).encode()
    (tmp_path / "r.csv").write_bytes(b"text,label\ngood one,pos\n,neg\nbad \xff,neg\nfine,\n" + good)
    error = refused(capsys, "--csv", tmp_path / "r.csv", "--label_column", "stars", "--output_dir", tmp_path / "out")
    assert "has no column 'stars' (its columns: text, label); name the right ones with --text_column" in error
    error = refused(capsys, "--csv", tmp_path / "r.csv", "--output_dir", tmp_path / "out")
    assert "has 3 rows with an empty or undecodable text or label (r.csv:3, r.csv:4, r.csv:5)" in error
    assert not (tmp_path / "out").exists()
    convert("--csv", tmp_path / "r.csv", "--output_dir", tmp_path / "out", "--skip_bad_files")
    info = records.load_info(str(tmp_path / "out"))
    assert info.num_examples("train") + info.num_examples("eval") == 41
