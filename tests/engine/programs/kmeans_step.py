# A k-means iteration: distances, argmin assignment, centroid update in a loop
# over clusters (one cluster goes empty and keeps its centroid).
# expect: compiled kmeans_step
import numpy as np
from _probe import snapshot, call

rng = np.random.RandomState(7)
pts = np.vstack([rng.randn(20, 2) + c for c in ([0, 0], [5, 5], [0, 6])])
centroids = np.array([[0.0, 0.0], [5.0, 5.0], [0.0, 6.0], [100.0, 100.0]])


def kmeans_step(points, cents):
    d = ((points[:, None, :] - cents[None, :, :]) ** 2).sum(axis=2)
    assign = d.argmin(axis=1)
    for k in range(cents.shape[0]):
        members = points[assign == k]
        if len(members) > 0:
            cents[k] = members.mean(axis=0)
    return assign, d.min(axis=1).sum()


for i in range(25):
    call(f"km{i}", kmeans_step, pts + 0.01 * i, centroids)
snapshot("centroids", centroids)
