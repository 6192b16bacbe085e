# A raise after the function already mutated state: the mutation must be kept,
# exactly as CPython keeps it, and the exception must be the real one.
# expect: compiled update
import numpy as np
from _probe import snapshot, call

weights = np.arange(6, dtype=np.float64)
log = []


class Budget:
    spent = 0.0


budget = Budget()


def update(grad, limit):
    weights[:] -= 0.5 * grad
    budget.spent += float(np.abs(grad).sum())
    log.append(budget.spent)
    if budget.spent > limit:
        raise ValueError(f"budget exceeded: {budget.spent:.3f} > {limit}")
    return weights.sum()


g = np.linspace(-1, 1, 6)
for i in range(30):
    call(f"update{i}", update, g, 40.0 if i < 25 else 10.0)
snapshot("weights", weights)
snapshot("log", log)
snapshot("budget", budget)
