/* nbody on R MPI ranks: the bodies dealt out in blocks, pos, vel and mass alike
   (hpcab show nbody --mpi; docs/mpi.md). The masses are gathered once; each time step
   gathers every body's position (an allgather: the force on a body needs all of them),
   then each rank sums the forces on its own bodies and advances them, v += dt a, x += dt v.
   Ranks that own no bodies still take part in every gather.
   The sum over j of s_j dx_j is the reference's np.sum, which is numpy's pairwise
   summation: runs of at most 128 terms summed in eight interleaved partial sums, longer
   runs split in two at a multiple of 8. It is reproduced here term for term, each term
   formed as the reference forms it; only the FMA contractions the flag set allows round
   differently.
   hpcab-distribution: pos=block vel=block mass=block */
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>

/* Every square root here is of r2 > 0, which never sets errno: said so, GCC may use vector
   square roots (the results are the same correctly rounded ones). */
extern double sqrt(double) __attribute__((const, nothrow));

/* Every body's coordinates and mass, gathered, as separate arrays (SIMD-friendly). */
typedef struct {
    const double *x, *y, *z, *m;
    double xi, yi, zi, eps2;
} pull;

/* The terms j .. j + n - 1 (n < 8) summed one after the other, as numpy sums a short run. */
static void short_run(const pull *p, int64_t j, int64_t n, double out[3]) {
    double sx = 0.0, sy = 0.0, sz = 0.0;
    for (int64_t k = j; k < j + n; k++) {
        const double dx = p->x[k] - p->xi, dy = p->y[k] - p->yi, dz = p->z[k] - p->zi;
        const double r2 = dx * dx + dy * dy + dz * dz + p->eps2;
        const double s = p->m[k] / (r2 * sqrt(r2));
        sx += s * dx;
        sy += s * dy;
        sz += s * dz;
    }
    out[0] = sx; out[1] = sy; out[2] = sz;
}

/* Eight terms from j into the eight partial sums (first: the sums start as these terms). */
static inline void eight(const pull *restrict p, int64_t j, double *restrict rx, double *restrict ry,
                         double *restrict rz, int first) {
    const double *restrict x = p->x + j, *restrict y = p->y + j, *restrict z = p->z + j, *restrict m = p->m + j;
    const double xi = p->xi, yi = p->yi, zi = p->zi, eps2 = p->eps2;
    double tx[8], ty[8], tz[8];
    for (int k = 0; k < 8; k++) {
        const double dx = x[k] - xi, dy = y[k] - yi, dz = z[k] - zi;
        const double r2 = dx * dx + dy * dy + dz * dz + eps2;
        const double s = m[k] / (r2 * sqrt(r2));
        tx[k] = s * dx;
        ty[k] = s * dy;
        tz[k] = s * dz;
    }
    for (int k = 0; k < 8; k++) {
        rx[k] = first ? tx[k] : rx[k] + tx[k];
        ry[k] = first ? ty[k] : ry[k] + ty[k];
        rz[k] = first ? tz[k] : rz[k] + tz[k];
    }
}

static double fold(const double r[8]) {
    return ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
}

/* numpy's pairwise sum of the terms j .. j + n - 1, for the three components at once. */
static void pairwise(const pull *p, int64_t j, int64_t n, double out[3]) {
    if (n < 8) {
        short_run(p, j, n, out);
    } else if (n <= 128) {
        double rx[8], ry[8], rz[8];
        const int64_t whole = n - n % 8;
        eight(p, j, rx, ry, rz, 1);
        for (int64_t i = 8; i < whole; i += 8)
            eight(p, j + i, rx, ry, rz, 0);
        double sx = fold(rx), sy = fold(ry), sz = fold(rz);
        for (int64_t k = j + whole; k < j + n; k++) {     /* the rest, one at a time */
            const double dx = p->x[k] - p->xi, dy = p->y[k] - p->yi, dz = p->z[k] - p->zi;
            const double r2 = dx * dx + dy * dy + dz * dz + p->eps2;
            const double s = p->m[k] / (r2 * sqrt(r2));
            sx += s * dx;
            sy += s * dy;
            sz += s * dz;
        }
        out[0] = sx; out[1] = sy; out[2] = sz;
    } else {
        int64_t half = n / 2;
        half -= half % 8;
        double lo[3], hi[3];
        pairwise(p, j, half, lo);
        pairwise(p, j + half, n - half, hi);
        out[0] = lo[0] + hi[0]; out[1] = lo[1] + hi[1]; out[2] = lo[2] + hi[2];
    }
}

void nbody(double *restrict pos, double *restrict vel, const double *restrict mass, double dt, double eps,
           int64_t N, int64_t NSTEPS, int64_t pos_first, int64_t pos_count, int64_t vel_first, int64_t vel_count,
           int64_t mass_first, int64_t mass_count, MPI_Fint comm, uint8_t *restrict workspace,
           int64_t workspace_size) {
    (void)vel_first; (void)vel_count; (void)mass_first; (void)mass_count; (void)workspace; (void)workspace_size;
    MPI_Comm c = MPI_Comm_f2c(comm);
    int size;
    MPI_Comm_size(c, &size);
    /* How many bodies each rank owns, and where its block starts (block: in rank order). */
    int *counts = malloc(2 * (size_t)size * sizeof *counts), *displs = malloc(2 * (size_t)size * sizeof *displs);
    int *counts3 = counts + size, *displs3 = displs + size;
    int mine = (int)pos_count;
    MPI_Allgather(&mine, 1, MPI_INT, counts, 1, MPI_INT, c);
    for (int r = 0, at = 0; r < size; at += counts[r], r++) {
        displs[r] = at;
        counts3[r] = 3 * counts[r];
        displs3[r] = 3 * at;
    }
    double *all = malloc((size_t)N * 3 * sizeof *all);             /* every position, as gathered */
    double *soa = malloc((size_t)N * 4 * sizeof *soa);             /* x, y, z and mass, each N long */
    double *px = soa, *py = soa + N, *pz = soa + 2 * N, *m = soa + 3 * N;
    MPI_Allgatherv(mass, mine, MPI_DOUBLE, m, counts, displs, MPI_DOUBLE, c);
    const double eps2 = eps * eps;
    for (int64_t step = 0; step < NSTEPS; step++) {
        /* The positions at the start of the step, everyone's: the forces use no newer ones. */
        MPI_Allgatherv(pos, 3 * mine, MPI_DOUBLE, all, counts3, displs3, MPI_DOUBLE, c);
        for (int64_t j = 0; j < N; j++) {
            px[j] = all[3 * j];
            py[j] = all[3 * j + 1];
            pz[j] = all[3 * j + 2];
        }
        for (int64_t l = 0; l < pos_count; l++) {
            const int64_t i = pos_first + l;
            const pull p = {px, py, pz, m, px[i], py[i], pz[i], eps2};
            double acc[3];
            pairwise(&p, 0, N, acc);
            /* Symplectic Euler for this body: its new velocity moves it. */
            for (int d = 0; d < 3; d++) {
                vel[3 * l + d] += dt * acc[d];
                pos[3 * l + d] += dt * vel[3 * l + d];
            }
        }
    }
    free(soa);
    free(all);
    free(counts);
    free(displs);
}
