# A function mapping a str slice at an int argument through a dict
# (min-char-rnn's `[char_to_ix[ch] for ch in data[p:p + n]]`), called with a
# new position every time: after the first guard miss the position is a
# relaxed int, each character a computed item of the str and each value the
# dict read at it before the run, so one graph serves every position. Traps
# after 20 calls: a value changed (read by the next run), a key added (a
# guard miss), a slice past the end (CPython's shorter list), a character
# missing from the dict (CPython's KeyError), a dict replaced by one with
# non-str keys.
# expect: compiled encode, embed
import numpy as np

from _probe import call, snapshot

data = "the quick brown fox jumps over the lazy dog; " * 3 + "#"
chars = sorted(set(data) - {"#"})
char_to_ix = {ch: i for i, ch in enumerate(chars)}
E = np.linspace(-1.0, 1.0, len(chars) * 3).reshape(len(chars), 3)


def encode(p, n):
    ixs = [char_to_ix[ch] for ch in data[p:p + n]]
    return ixs, len(ixs)


def embed(p):
    inputs = [char_to_ix[ch] for ch in data[p:p + 5]]
    targets = [char_to_ix[ch] for ch in data[p + 1:p + 6]]
    x = np.zeros((len(chars), 1))
    for t in range(len(inputs)):
        x[inputs[t]] += E[targets[t], 0] * (t + 1)
    first = [char_to_ix[ch] for ch in data[p:p + 3]]
    total = first[0] + first[1] * 2 - first[2]
    return x, inputs[0] - targets[-1], total


for step in range(20):
    call(f"encode{step}", encode, step * 3, 4)
    call(f"embed{step}", embed, step * 2)

char_to_ix["q"] = 1000
call("encode_value_changed", encode, 0, 8)
call("embed_value_changed", embed, 2)
char_to_ix["%"] = -1
call("encode_key_added", encode, 5, 4)
call("embed_key_added", embed, 7)
call("encode_past_the_end", encode, len(data) - 3, 4)
call("encode_missing", encode, len(data) - 2, 4)
call("embed_missing", embed, len(data) - 6)
for step in range(5):
    call(f"encode_again{step}", encode, step * 7, 4)
char_to_ix = {**char_to_ix, 3.5: 0}
call("encode_float_key_in_dict", encode, 4, 4)
snapshot("char_to_ix", char_to_ix)
