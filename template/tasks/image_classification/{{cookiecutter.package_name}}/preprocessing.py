"""Image preprocessing: pure TF functions with fixed output shapes, usable eagerly, in tf.data and in exports."""

import tensorflow as tf


def decode(encoded):
    """PNG, JPEG, GIF or BMP bytes -> uint8 [H, W, 3]; grey and RGBA images become RGB.

    prepare_data accepts exactly the files this decodes, so the converter never writes what training cannot read.
    """
    return tf.io.decode_image(encoded, channels=3, expand_animations=False)


def preprocess_for_eval(image, image_size):
    """Resizes a uint8 image [H, W, 3] of any size to float32 [image_size, image_size, 3] in [0, 1]."""
    image = tf.cond(
        # A resize to the same size changes nothing but costs half of the input pipeline's time: skip it.
        tf.reduce_all(tf.shape(image)[:2] == image_size),
        lambda: tf.cast(image, tf.float32),
        lambda: tf.image.resize(image, [image_size, image_size], antialias=True),
    )
    ### BEGIN SOLUTION (Exercise 3, TODO)
    # The TPU needs static shapes; decoded images of unknown size only get one here.
    image = tf.ensure_shape(image, [image_size, image_size, 3])
    ### END SOLUTION
    return image / 255.0


def augment(images, seed, crop_padding, random_flip, max_brightness_delta):
    """Random shifts (reflect-pad, then crop), left-right flips and brightness changes of a batch, drawn per image.

    Args:
      images: float32 [B, S, S, 3] in [0, 1] with B static, as a fixed batch gives it.
      seed: int tensor [2]. The stateless ops make the augmentation a function of the seed, so a resumed run sees
        the same augmented batches as an uninterrupted one.
      crop_padding: pixels of reflected border to pad before cropping back to S; 0 disables the shift.
      random_flip: whether to flip each image left-right with probability 1/2.
      max_brightness_delta: the largest brightness change (see random_brightness); 0 disables it.

    Whole-batch ops rather than one image at a time: on a CPU the per-image loop cost more than the augmentation.
    """
    # The size as a tensor: an image size that TensorFlow was not told (the pre-flight's first check) still trains.
    batch, size = images.shape[0], tf.shape(images)[1]
    shift_seed, flip_seed = tf.unstack(tf.random.experimental.stateless_split(seed, num=2))
    if crop_padding:
        pad = [[0, 0], [crop_padding, crop_padding], [crop_padding, crop_padding], [0, 0]]
        padded = tf.pad(images, pad, mode="REFLECT")
        offsets = tf.random.stateless_uniform([batch, 2], shift_seed, maxval=2 * crop_padding + 1, dtype=tf.int32)
        rows = offsets[:, :1] + tf.range(size)  # [B, S]: the rows each image keeps
        columns = offsets[:, 1:] + tf.range(size)
        images = tf.gather(tf.gather(padded, rows, axis=1, batch_dims=1), columns, axis=2, batch_dims=1)
    if random_flip:
        flip = tf.random.stateless_uniform([batch], flip_seed) < 0.5
        images = tf.where(flip[:, None, None, None], tf.reverse(images, axis=[2]), images)
    if max_brightness_delta:
        # A seed of its own, folded in, leaves the shifts and flips of earlier versions unchanged.
        images = random_brightness(images, tf.random.experimental.stateless_fold_in(seed, 2), max_brightness_delta)
    return images


def random_brightness(images, seed, max_delta):
    """Adds one random value in [-max_delta, max_delta] to every pixel of each image, keeping pixels in [0, 1].

    Args:
      images: float32 [B, S, S, 3] in [0, 1], B static.
      seed: int tensor [2]; the same seed gives the same changes.
      max_delta: the largest change, in the units of the pixels (1 is white minus black).
    """
    ### BEGIN SOLUTION (Exercise 5)
    deltas = tf.random.stateless_uniform([images.shape[0], 1, 1, 1], seed, -max_delta, max_delta)
    return tf.clip_by_value(images + deltas, 0.0, 1.0)
    ### END SOLUTION
