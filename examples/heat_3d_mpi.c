/* heat_3d on R MPI ranks: the N x N x N grids' planes (axis 0) dealt out in blocks. Before
   each half step (A into B, then B into A) every rank swaps one halo plane with each
   neighbour, and computes the planes that need no halo while the messages travel
   (hpcab show heat_3d --mpi).
   hpcab-distribution: A=block B=block */
#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>

/* One plane of the stencil: out from mid, with the planes below (i - 1) and above (i + 1).
   The reference's order of operations, term by term. */
static void plane(double *restrict out, const double *restrict below, const double *restrict mid,
                  const double *restrict above, int64_t N) {
    for (int64_t j = 1; j < N - 1; j++) {
        const double *m = mid + j * N, *mn = m - N, *ms = m + N, *b = below + j * N, *a = above + j * N;
        double *o = out + j * N;
        for (int64_t k = 1; k < N - 1; k++) {
            double c = m[k];
            o[k] = 0.125 * (a[k] - 2.0 * c + b[k])
                 + 0.125 * (ms[k] - 2.0 * c + mn[k])
                 + 0.125 * (m[k + 1] - 2.0 * c + m[k - 1])
                 + c;
        }
    }
}

/* The owned plane l (global first + l) of dst from src; lo and hi hold the neighbours'
   planes first - 1 and first + count. The grid's first and last planes stay fixed. */
static void local_plane(double *dst, const double *src, const double *lo, const double *hi,
                        int64_t l, int64_t first, int64_t count, int64_t N) {
    int64_t i = first + l, P = N * N;
    if (i == 0 || i == N - 1) return;
    const double *below = l == 0 ? lo : src + (l - 1) * P;
    const double *above = l == count - 1 ? hi : src + (l + 1) * P;
    plane(dst + l * P, below, src + l * P, above, N);
}

/* One half step: halo planes of src from the neighbours (nonblocking), the inner planes
   meanwhile, then the two edge planes once the halo is in. */
static void half_step(double *dst, const double *src, double *lo, double *hi, int64_t first, int64_t count,
                      int64_t N, int prev, int next, MPI_Comm c) {
    int64_t P = N * N;
    MPI_Request req[4];
    int n = 0;
    if (prev >= 0) {
        MPI_Irecv(lo, (int)P, MPI_DOUBLE, prev, 0, c, &req[n++]);
        MPI_Isend(src, (int)P, MPI_DOUBLE, prev, 1, c, &req[n++]);
    }
    if (next >= 0) {
        MPI_Irecv(hi, (int)P, MPI_DOUBLE, next, 1, c, &req[n++]);
        MPI_Isend(src + (count - 1) * P, (int)P, MPI_DOUBLE, next, 0, c, &req[n++]);
    }
    for (int64_t l = 1; l < count - 1; l++)
        local_plane(dst, src, lo, hi, l, first, count, N);
    MPI_Waitall(n, req, MPI_STATUSES_IGNORE);
    local_plane(dst, src, lo, hi, 0, first, count, N);
    if (count > 1)
        local_plane(dst, src, lo, hi, count - 1, first, count, N);
}

void heat_3d(double *restrict A, double *restrict B, int64_t TSTEPS, int64_t N,
             int64_t A_first, int64_t A_count, int64_t B_first, int64_t B_count,
             MPI_Fint comm, uint8_t *restrict workspace, int64_t workspace_size) {
    (void)B_first; (void)B_count; (void)workspace; (void)workspace_size;
    MPI_Comm c = MPI_Comm_f2c(comm);
    int rank, size;
    MPI_Comm_rank(c, &rank);
    MPI_Comm_size(c, &size);
    /* Block planes: rank r owns some iff r < N; a rank with none has nothing to exchange
       (its neighbours see it as absent) and nothing to compute. */
    if (A_count == 0) return;
    int owners = N < size ? (int)N : size;
    int prev = rank > 0 ? rank - 1 : -1, next = rank + 1 < owners ? rank + 1 : -1;
    size_t P = (size_t)(N * N);
    double *lo = malloc(2 * P * sizeof *lo), *hi = lo + P;
    for (int64_t t = 0; t < TSTEPS; t++) {
        half_step(B, A, lo, hi, A_first, A_count, N, prev, next, c);
        half_step(A, B, lo, hi, A_first, A_count, N, prev, next, c);
    }
    free(lo);
}
