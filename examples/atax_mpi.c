/* atax on R MPI ranks, y = A^T (A x): the rows of A dealt out in blocks, x whole on every
   rank (hpcab show atax --mpi; docs/mpi.md). A rank computes tmp[i] = A[i,:] . x for its own
   rows and, while the row is still in cache, adds tmp[i] A[i,:] into a partial y; one
   reduction sums the partial y's into rank 0's y (the replicated output that counts).
   tmp is never gathered: each of its entries is used only by the rank owning its row.
   hpcab-distribution: A=block */
#include <mpi.h>
#include <stdint.h>

/* A row's dot product with x: eight partial sums, so the loop runs in SIMD lanes (A x is a
   BLAS product in the reference too, summed in no fixed order). */
static double dot(const double *restrict a, const double *restrict x, int64_t n) {
    double r[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    int64_t j = 0;
    for (; j + 8 <= n; j += 8)
        for (int k = 0; k < 8; k++)
            r[k] += a[j + k] * x[j + k];
    double s = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; j < n; j++)
        s += a[j] * x[j];
    return s;
}

void atax(const double *restrict A, const double *restrict x, double *restrict y, int64_t M, int64_t N,
          int64_t A_first, int64_t A_count, MPI_Fint comm, uint8_t *restrict workspace, int64_t workspace_size) {
    (void)M; (void)A_first; (void)workspace; (void)workspace_size;
    MPI_Comm c = MPI_Comm_f2c(comm);
    int rank;
    MPI_Comm_rank(c, &rank);
    /* Every rank's y starts as its partial sum over its own rows (zero where it owns none). */
    for (int64_t j = 0; j < N; j++)
        y[j] = 0.0;
    for (int64_t l = 0; l < A_count; l++) {
        const double *restrict row = A + l * N;
        const double t = dot(row, x, N);
        for (int64_t j = 0; j < N; j++)
            y[j] += row[j] * t;
    }
    /* The partial sums into rank 0's y; every rank takes part, rows or none. N fits an int
       (the manifest's range), so one call moves the whole vector. */
    if (rank == 0)
        MPI_Reduce(MPI_IN_PLACE, y, (int)N, MPI_DOUBLE, MPI_SUM, 0, c);
    else
        MPI_Reduce(y, NULL, (int)N, MPI_DOUBLE, MPI_SUM, 0, c);
}
