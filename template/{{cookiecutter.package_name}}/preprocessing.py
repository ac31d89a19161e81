"""Image preprocessing: pure TF functions with fixed output shapes, usable eagerly, in tf.data and in exports."""

import tensorflow as tf


def preprocess_for_eval(image, image_size):
    """Resizes a uint8 image [H, W, 3] of any size to float32 [image_size, image_size, 3] in [0, 1]."""
    image = tf.image.resize(image, [image_size, image_size], antialias=True)
    # The TPU needs static shapes; decoded images of unknown size only get one through the resize above.
    return tf.ensure_shape(image / 255.0, [image_size, image_size, 3])


def preprocess_for_train(image, seed, image_size, crop_padding, random_flip):
    """Like preprocess_for_eval, plus a random shift (pad and crop) and a random horizontal flip.

    Args:
      image: uint8 tensor [H, W, 3].
      seed: int tensor [2]. The stateless ops make the augmentation a function of the seed, so a resumed run sees
        the same augmented examples as an uninterrupted one.
      image_size: output height and width.
      crop_padding: pixels of reflected border to pad before cropping back to image_size; 0 disables the shift.
      random_flip: whether to flip left-right with probability 1/2.
    """
    image = preprocess_for_eval(image, image_size)
    crop_seed, flip_seed = tf.unstack(tf.random.experimental.stateless_split(seed, num=2))
    if crop_padding:
        pad = [[crop_padding, crop_padding], [crop_padding, crop_padding], [0, 0]]
        padded = tf.pad(image, pad, mode="REFLECT")
        image = tf.image.stateless_random_crop(padded, [image_size, image_size, 3], seed=crop_seed)
    if random_flip:
        image = tf.image.stateless_random_flip_left_right(image, seed=flip_seed)
    return image
