"""Synthetic product reviews labelled with one of five sentiments, generated offline and deterministically.

A review holds a main opinion clause ("the screen is not very good"), often next to a minor one joined by "but",
"however", "although" or "even though", wrapped in neutral filler sentences. The label is the sentiment of the main
clause. Which clause is the main one depends on where the connective sits, a negator flips the adjective after it
and an intensifier makes it strong only when not negated, so a bag of words cannot tell the label apart where an
order-aware model can. Typos, shouting and a few percent of random labels keep the task from being trivial.
"""

import numpy as np

CLASS_NAMES = ("very negative", "negative", "neutral", "positive", "very positive")

_ADJECTIVES = {
    -1: ("bad", "poor", "awful", "flimsy", "useless", "disappointing", "noisy", "slow", "terrible", "cheap"),
    0: ("okay", "average", "fine", "acceptable", "ordinary", "standard", "alright"),
    1: ("good", "great", "solid", "reliable", "excellent", "fast", "sturdy", "lovely", "impressive", "quiet"),
}
_INTENSIFIERS = ("very", "really", "extremely", "incredibly", "so", "truly", "super")
_NEGATORS = ("not", "never", "no longer", "hardly", "not at all")
_SUBJECTS = ("the battery", "this phone", "the screen", "the delivery", "the price", "the case", "it", "the sound")
_VERBS = ("is", "was", "has been", "seems", "felt", "is just")
# Each form places the minor clause {0} and the main clause {1}; the label follows {1} wherever it stands.
_FORMS = (
    "{1}",
    "{1}",
    "{0} but {1}",
    "{0}, however {1}",
    "although {0}, {1}",
    "{1}, although {0}",
    "{1} even though {0}",
)
_FILLERS = (
    "i bought this last week",
    "my brother recommended it",
    "honestly though",
    "long story short",
    "it arrived on tuesday in a big box",
    "i use it every day for work",
    "update after a month",
    "for what it costs",
    "we ordered two of them",
    "lol ok",
    "to be fair",
    "the color is blue",
)
_LABEL_NOISE = 0.03
_TYPO_RATE = 0.02


def _pick(rng, options):
    """Returns a random element of `options`; faster than rng.choice, which first copies it into an array."""
    return options[rng.integers(len(options))]


def _clause(rng):
    """Returns one opinion clause and its class index."""
    polarity = int(rng.integers(-1, 2))
    negated = polarity != 0 and rng.random() < 0.4
    intensified = polarity != 0 and rng.random() < 0.4
    words = [_pick(rng, _SUBJECTS), _pick(rng, _VERBS)]
    words += [_pick(rng, _NEGATORS)] if negated else []
    words += [_pick(rng, _INTENSIFIERS)] if intensified else []
    words.append(_pick(rng, _ADJECTIVES[polarity]))
    # "not very good" is merely negative: negation dominates the intensifier it precedes.
    strength = 2 if intensified and not negated else 1
    return " ".join(words), 2 + (-polarity if negated else polarity) * strength


def _add_noise(word, rng):
    """Occasionally swaps two letters or shouts, as hurried reviewers do."""
    if len(word) > 3 and rng.random() < _TYPO_RATE:
        i = int(rng.integers(len(word) - 1))
        word = word[:i] + word[i + 1] + word[i] + word[i + 2 :]
    return word.upper() if rng.random() < 0.02 else word


def _review(rng):
    """Returns one review and its class index."""
    (minor, _), (main, label) = _clause(rng), _clause(rng)
    sentences = [_pick(rng, _FILLERS) for _ in range(rng.integers(1, 4))]
    sentences.insert(int(rng.integers(len(sentences) + 1)), _pick(rng, _FORMS).format(minor, main))
    text = " ".join(s[0].upper() + s[1:] + _pick(rng, (".", "!", "...", "!!")) for s in sentences)
    return " ".join(_add_noise(word, rng) for word in text.split()), label


def generate(num_examples, seed=0):
    """Generates `num_examples` reviews; the same arguments always give the same reviews.

    Returns:
        A list of review strings and an int64 array of class indices into CLASS_NAMES.
    """
    rng = np.random.default_rng(seed)
    texts, labels = zip(*(_review(rng) for _ in range(num_examples)), strict=True)
    labels = np.array(labels, dtype=np.int64)
    noisy = rng.random(num_examples) < _LABEL_NOISE
    labels[noisy] = rng.integers(len(CLASS_NAMES), size=int(noisy.sum()))
    return list(texts), labels
