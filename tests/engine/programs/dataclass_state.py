# Dataclass objects holding arrays and Python numbers, updated by a hot function.
# expect: compiled integrate
from dataclasses import dataclass
import numpy as np
from _probe import snapshot, call


@dataclass
class Particle:
    pos: np.ndarray
    vel: np.ndarray
    t: float = 0.0
    bounces: int = 0


def integrate(p, dt):
    p.vel[1] -= 9.81 * dt
    p.pos += p.vel * dt
    if p.pos[1] < 0:
        p.pos[1] = -p.pos[1]
        p.vel[1] = -0.9 * p.vel[1]
        p.bounces += 1
    p.t += dt
    return p.pos.copy()


p = Particle(np.array([0.0, 1.0]), np.array([1.0, 0.0]))
for i in range(40):
    call(f"int{i}", integrate, p, 0.05)
snapshot("p", p)
