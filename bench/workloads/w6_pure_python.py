# %% [markdown]
# # W6: a pure-Python cell
# Dicts and strings only, no NumPy: word counts, grouping and report formatting. The
# engine has nothing to compile here, so this measures what the kernel costs per cell.

# %% setup
import os
import random
import sys
from collections import Counter

QUICK = os.environ.get("SPECULA_BENCH_QUICK") == "1" or "--quick" in sys.argv[1:]

random_words = random.Random(0)
syllables = ["ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "xe", "zu", "an", "el"]
words = ["".join(random_words.choice(syllables) for _ in range(random_words.randint(1, 3)))
         for _ in range(20_000 if QUICK else 200_000)]

# %% timed
counts = {}
for w in words:
    counts[w] = counts.get(w, 0) + 1
by_initial = {}
for w, c in counts.items():
    by_initial.setdefault(w[:2], []).append(f"{w}:{c}")
lines = []
for key in sorted(by_initial):
    entries = sorted(by_initial[key], key=lambda e: (-int(e.split(":")[1]), e))
    lines.append(f"{key.upper()} ({len(entries)}): " + ", ".join(entries[:3]))
report = "\n".join(lines)

# %% check
# The hand-written counting must agree with collections.Counter.
assert counts == Counter(words)
assert sum(int(e.split(":")[1]) for v in by_initial.values() for e in v) == len(words)
assert report.count("\n") == len(by_initial) - 1
