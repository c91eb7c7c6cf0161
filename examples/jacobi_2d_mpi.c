/* jacobi_2d on R MPI ranks: rows dealt out in blocks, one halo row exchanged with each
   neighbour before every sweep (hpcab show jacobi_2d --mpi; docs/mpi.md).
   hpcab-distribution: A=block B=block */
#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* One sweep of the rows this rank owns into dst, from src with its halo rows above and below. */
static void sweep(double *restrict dst, const double *restrict src, const double *up, const double *down,
                  int64_t first, int64_t count, int64_t N) {
    for (int64_t l = 0; l < count; l++) {
        int64_t i = first + l;
        if (i == 0 || i == N - 1) continue;          /* the fixed boundary rows */
        const double *above = l == 0 ? up : src + (l - 1) * N;
        const double *below = l == count - 1 ? down : src + (l + 1) * N;
        const double *row = src + l * N;
        double *out = dst + l * N;
        for (int64_t j = 1; j < N - 1; j++)
            out[j] = 0.2 * (row[j] + row[j - 1] + row[j + 1] + below[j] + above[j]);
    }
}

/* Rows first - 1 and first + count from the neighbours (block: rank - 1 and rank + 1). */
static void halo(const double *x, double *up, double *down, int64_t count, int64_t N, MPI_Comm c) {
    int rank, size;
    MPI_Comm_rank(c, &rank);
    MPI_Comm_size(c, &size);
    /* Block rows: rank r owns rows iff r < N, so ranks past the last owner take no part. */
    int owners = N < size ? (int)N : size, prev = rank - 1, next = rank + 1;
    MPI_Request req[4];
    int n = 0;
    if (count > 0 && prev >= 0) {
        MPI_Irecv(up, (int)N, MPI_DOUBLE, prev, 0, c, &req[n++]);
        MPI_Isend(x, (int)N, MPI_DOUBLE, prev, 1, c, &req[n++]);
    }
    if (count > 0 && next < owners) {
        MPI_Irecv(down, (int)N, MPI_DOUBLE, next, 1, c, &req[n++]);
        MPI_Isend(x + (count - 1) * N, (int)N, MPI_DOUBLE, next, 0, c, &req[n++]);
    }
    MPI_Waitall(n, req, MPI_STATUSES_IGNORE);
}

void jacobi_2d(double *restrict A, double *restrict B, int64_t TSTEPS, int64_t N,
               int64_t A_first, int64_t A_count, int64_t B_first, int64_t B_count,
               MPI_Fint comm, uint8_t *restrict workspace, int64_t workspace_size) {
    (void)B_first; (void)B_count; (void)workspace; (void)workspace_size;
    MPI_Comm c = MPI_Comm_f2c(comm);
    double *up = calloc((size_t)N, sizeof *up), *down = calloc((size_t)N, sizeof *down);
    for (int64_t t = 0; t < TSTEPS; t++) {
        halo(A, up, down, A_count, N, c);
        sweep(B, A, up, down, A_first, A_count, N);
        halo(B, up, down, A_count, N, c);
        sweep(A, B, up, down, A_first, A_count, N);
    }
    free(up);
    free(down);
}
