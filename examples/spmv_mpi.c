/* spmv on R MPI ranks, y = A x for a CSR matrix A: the rows of y dealt out in blocks over a
   replicated matrix and x (hpcab show spmv --mpi; docs/mpi.md). A row's nonzeros are
   indptr[i] .. indptr[i+1] - 1, which a block of the nnz-length arrays would cut anywhere,
   so every rank holds the whole CSR arrays and computes the rows of y it owns: row
   y_first + l into y[l]. No messages are needed; each row is summed in the reference's
   order.
   hpcab-distribution: y=block */
#include <mpi.h>
#include <stdint.h>

void spmv(const double *restrict values, const int64_t *restrict indices, const int64_t *restrict indptr,
          const double *restrict x, double *restrict y, int64_t M, int64_t N, int64_t NNZ,
          int64_t y_first, int64_t y_count, MPI_Fint comm, uint8_t *restrict workspace, int64_t workspace_size) {
    (void)M; (void)N; (void)NNZ; (void)comm; (void)workspace; (void)workspace_size;
    for (int64_t l = 0; l < y_count; l++) {
        const int64_t i = y_first + l;
        double s = 0.0;
        for (int64_t jj = indptr[i]; jj < indptr[i + 1]; jj++)
            s += values[jj] * x[indices[jj]];
        y[l] = s;
    }
}
