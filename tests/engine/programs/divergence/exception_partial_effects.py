# Footgun: exceptions — effects before the raise must stay, effects after must not
# happen; the exception's type, message, chained cause and traceback must be CPython's.
# expect: compiled commit
import numpy as np
from _probe import snapshot, call

ledger = {"a": np.zeros(2), "n": 0, "log": []}


class BudgetError(RuntimeError):
    pass


def commit(amount):
    ledger["a"] += amount
    ledger["log"].append(float(amount.sum()))
    if ledger["a"].sum() > 30:
        try:
            {}["missing"]
        except KeyError as e:
            raise BudgetError(f"over budget: {ledger['a']}") from e
    ledger["n"] += 1
    return ledger["n"]


for i in range(28):
    call(f"commit{i}", commit, np.array([0.5, 1.0]))
snapshot("ledger", ledger)
