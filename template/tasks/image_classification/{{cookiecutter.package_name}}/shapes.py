"""The embedded dataset: images of simple shapes, generated deterministically, so no download is ever needed.

Each image shows one shape of a random size, position, rotation and colour on a random background, with noise.
"""

import numpy as np

CLASS_NAMES = ("circle", "ring", "square", "triangle", "cross")


def _mask(name, u, v, size):
    """Pixels inside shape `name` of radius `size`, in the shape's own (rotated) coordinates u, v."""
    if name == "circle":
        return u**2 + v**2 <= size**2
    if name == "ring":
        return ((0.55 * size) ** 2 <= u**2 + v**2) & (u**2 + v**2 <= size**2)
    if name == "square":
        return np.maximum(np.abs(u), np.abs(v)) <= 0.8 * size
    if name == "triangle":
        return (v >= -size / 2) & (v <= np.sqrt(3) * u + size) & (v <= -np.sqrt(3) * u + size)
    if name == "cross":
        arm = 0.3 * size
        return ((np.abs(u) <= arm) & (np.abs(v) <= size)) | ((np.abs(v) <= arm) & (np.abs(u) <= size))
    raise ValueError(f"Unknown shape {name!r}; the shapes are {CLASS_NAMES}.")


def _colours(rng):
    """A foreground and a background colour whose brightness differs enough to see the shape."""
    while True:
        foreground, background = rng.uniform(0, 1, size=(2, 3))
        if abs(foreground.mean() - background.mean()) > 0.25:
            return foreground, background


def generate(num_examples, image_size=32, seed=0):
    """Returns (images uint8 [N, image_size, image_size, 3], labels int64 [N]); the same for the same arguments."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(len(CLASS_NAMES), size=num_examples)
    grid = np.arange(image_size) + 0.5
    y, x = np.meshgrid(grid, grid, indexing="ij")
    images = np.empty((num_examples, image_size, image_size, 3), np.uint8)
    for i, label in enumerate(labels):
        size = rng.uniform(0.2, 0.45) * image_size
        cx, cy = rng.uniform(size, image_size - size, size=2)
        angle = rng.uniform(0, 2 * np.pi)
        u = np.cos(angle) * (x - cx) + np.sin(angle) * (y - cy)
        v = -np.sin(angle) * (x - cx) + np.cos(angle) * (y - cy)
        mask = _mask(CLASS_NAMES[label], u, v, size)[..., None]
        foreground, background = _colours(rng)
        image = np.where(mask, foreground, background) + rng.normal(0, 0.06, size=(image_size, image_size, 3))
        images[i] = np.clip(image * 255, 0, 255).round().astype(np.uint8)
    return images, labels
