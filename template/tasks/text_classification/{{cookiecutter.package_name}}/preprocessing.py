"""Text to token ids with TensorFlow ops alone, so a TPU host's tf.data pipeline and a SavedModel can run them.

The vocabulary is built once, by prepare_data from the training split, with the same `normalize` that the pipeline
uses, so the words counted are exactly the words looked up later. It is saved as vocabulary.txt in the data folder:
one word per line, the line number is its id.
"""

import collections

import tensorflow as tf

PAD, UNK = "[PAD]", "[UNK]"
PAD_ID, UNK_ID = 0, 1
VOCABULARY_FILE = "vocabulary.txt"


def normalize(texts):
    """Lowercases string tensor `texts` and sets every punctuation mark apart as a word of its own."""
    texts = tf.strings.lower(texts, encoding="utf-8")
    return tf.strings.regex_replace(texts, r"([[:punct:]])", r" \1 ")


def build_vocabulary(texts, max_size):
    """Returns the `max_size` most frequent words of `texts` (a list of str), [PAD] and [UNK] first.

    Build it from the training split only. Ties in count go alphabetically, so the same texts always give the same
    vocabulary.
    """
    words = tf.strings.split(normalize(tf.constant(texts))).flat_values.numpy()
    counts = collections.Counter(word.decode("utf-8") for word in words)
    ranked = sorted(counts, key=lambda word: (-counts[word], word))
    return [PAD, UNK, *ranked[: max_size - 2]]


class Tokenizer(tf.Module):
    """Maps a string tensor [B] to int32 token ids [B, sequence_length]: padded with PAD_ID or truncated.

    A tf.Module, so that an exported SavedModel holds its lookup table.
    """

    def __init__(self, vocabulary, sequence_length):
        super().__init__()
        self.sequence_length = sequence_length
        initializer = tf.lookup.KeyValueTensorInitializer(
            tf.constant(vocabulary), tf.range(len(vocabulary), dtype=tf.int64)
        )
        self.table = tf.lookup.StaticHashTable(initializer, default_value=UNK_ID)

    def __call__(self, texts):
        words = tf.strings.split(normalize(texts))
        ids = tf.ragged.map_flat_values(self.table.lookup, words)
        ids = tf.cast(ids.to_tensor(default_value=PAD_ID, shape=[None, self.sequence_length]), tf.int32)
        ### BEGIN SOLUTION (Exercise 3, TODO)
        # The TPU needs static shapes: the batch size is known wherever the batch's is.
        ids = tf.ensure_shape(ids, [texts.shape[0], self.sequence_length])
        ### END SOLUTION
        return ids


def drop_words(ids, seed, rate):
    """Replaces each word of token ids [B, L] by [UNK] with probability `rate`; padding stays padding.

    Args:
      ids: int32 token ids [B, L], padded with PAD_ID, as the Tokenizer gives them.
      seed: int tensor [2]; the same seed drops the same words.
      rate: the probability that a word is dropped, in [0, 1).
    """
    ### BEGIN SOLUTION (Exercise 5)
    dropped = (tf.random.stateless_uniform(tf.shape(ids), seed) < rate) & (ids != PAD_ID)
    return tf.where(dropped, tf.constant(UNK_ID, ids.dtype), ids)
    ### END SOLUTION
