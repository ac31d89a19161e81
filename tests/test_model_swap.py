"""Slow: a student swaps the network for a residual one by editing model.py (and the config that selects it), and
the project's own suite stays green: nothing else names the network or depends on its sizes."""

import pytest
from conftest import PYTHON, changed_files, run

pytestmark = pytest.mark.slow

RESIDUAL = '''

@gin.configurable
def residual_net(images, num_classes, width: int, blocks: int):
    """A stem convolution, then blocks of two 3x3 convolutions around a skip connection."""
    x = keras.layers.Conv2D(width, 3, padding="same", activation="relu")(images)
    for _ in range(blocks):
        y = keras.layers.Conv2D(width, 3, padding="same", activation="relu")(x)
        y = keras.layers.Conv2D(width, 3, padding="same")(y)
        x = keras.layers.ReLU()(x + y)
    x = keras.layers.GlobalAveragePooling2D()(x)
    return keras.layers.Dense(num_classes, dtype="float32")(x)
'''
SELECTED = "\nbuild_model.network = @residual_net\nresidual_net.width = 16\nresidual_net.blocks = 2\n"


def test_a_residual_network_in_model_py_passes_the_suite(tmp_path, render):
    project = render(tmp_path / "swapped")
    original = render(tmp_path / "original")
    package = next(project.glob("*/model.py")).parent
    (package / "model.py").write_text((package / "model.py").read_text() + RESIDUAL)
    (project / "configs" / "base.gin").write_text((project / "configs" / "base.gin").read_text() + SELECTED)

    changed = changed_files(project, original)
    assert changed == ["configs/base.gin", f"{package.name}/model.py"]
    run([PYTHON, "-m", "ruff", "check", "."], cwd=project)
    result = run([PYTHON, "-m", "pytest", "-q", "-p", "no:cacheprovider"], cwd=project, timeout=900)
    assert " passed" in result.stdout and "failed" not in result.stdout
    print(f"model swap: changed {', '.join(changed)}; {result.stdout.strip().splitlines()[-1]}")
