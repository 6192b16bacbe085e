/* STREAM triad a[i] = b[i] + s*c[i] on arrays far larger than the caches.
 * Prints the best bandwidth over the repetitions in GB/s, counting 24 bytes per element
 * as STREAM does (no write-allocate traffic). Built by machine.py with gcc -O3 -fopenmp. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 1L << 25;
    int reps = argc > 2 ? atoi(argv[2]) : 10;
    double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
    if (!a || !b || !c) return 1;
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i++) { a[i] = 0.0; b[i] = 1.0; c[i] = 2.0; }
    double best = 0.0;
    for (int r = 0; r < reps; r++) {
        double t0 = omp_get_wtime();
#pragma omp parallel for schedule(static)
        for (long i = 0; i < n; i++) a[i] = b[i] + 3.0 * c[i];
        double gbs = 24.0 * n / (omp_get_wtime() - t0) / 1e9;
        if (gbs > best) best = gbs;
    }
    printf("%.3f %g\n", best, a[n / 2]);
    return 0;
}
