# Python ints that outgrow 64 bits inside a hot function: never wrap.
# expect: compiled grow
from _probe import snapshot, call

total = 1


def grow(k, arr_len):
    global total
    total = total * 3 + k
    fact = 1
    for j in range(2, k + 2):
        fact *= j
    return total, fact, total.bit_length(), total % 1000003, -total // 7, arr_len << 60


for k in range(45):
    call(f"grow{k}", grow, k, k + 1)
snapshot("total", total)
