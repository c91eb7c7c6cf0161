/* gemm on R MPI ranks: rows of A and C dealt out in blocks, B replicated (hpcab show gemm --mpi).
   hpcab-distribution: A=block C=block

   Each rank's rows of C depend only on its rows of A and the whole of B, so the ranks never
   talk: the rank multiplies its tile A (count x NK) by B into count x NJ, cache-blocked
   (B packed in KC x NC blocks of NR-column panels, MR x NR register tiles), then
   C = alpha * (A @ B) + beta * C as the reference writes it. The code reads only the tiles
   as given, in order, so it is correct under cyclic or block-cyclic rows too, provided A and
   C are split alike. */
#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Four doubles: GNU C's vector extension, so that the register tile's eight accumulators
   stay in registers (the compiler lowers it to whatever SIMD the target has). */
typedef double vec __attribute__((vector_size(32)));
#define MR 4      /* rows of a register tile */
#define NR 8      /* columns of a register tile (one packed panel): two vecs */
#define KC 256    /* depth of a packed block of B */
#define NC 256    /* columns of a packed block of B (a multiple of NR) */

/* t[r][j] += sum over k < kc of a[r][k] * b[k][j] for an MR x NR tile; a's rows are given by
   pointer (a short tile repeats a row and drops its results), b is a packed panel (kc x NR),
   only mr x nr of t is written (t's rows ldt apart). */
static void micro(int64_t kc, const double *a0, const double *a1, const double *a2, const double *a3,
                  const double *restrict b, double *restrict t, int64_t ldt, int64_t mr, int64_t nr) {
    vec c00 = {0}, c01 = {0}, c10 = {0}, c11 = {0}, c20 = {0}, c21 = {0}, c30 = {0}, c31 = {0};
    for (int64_t k = 0; k < kc; k++) {
        vec b0, b1;
        memcpy(&b0, b + k * NR, sizeof b0);
        memcpy(&b1, b + k * NR + 4, sizeof b1);
        c00 += a0[k] * b0; c01 += a0[k] * b1;
        c10 += a1[k] * b0; c11 += a1[k] * b1;
        c20 += a2[k] * b0; c21 += a2[k] * b1;
        c30 += a3[k] * b0; c31 += a3[k] * b1;
    }
    double acc[MR][NR];
    memcpy(acc[0], &c00, sizeof c00); memcpy(acc[0] + 4, &c01, sizeof c01);
    memcpy(acc[1], &c10, sizeof c10); memcpy(acc[1] + 4, &c11, sizeof c11);
    memcpy(acc[2], &c20, sizeof c20); memcpy(acc[2] + 4, &c21, sizeof c21);
    memcpy(acc[3], &c30, sizeof c30); memcpy(acc[3] + 4, &c31, sizeof c31);
    for (int64_t r = 0; r < mr; r++)
        for (int64_t j = 0; j < nr; j++)
            t[r * ldt + j] += acc[r][j];
}

/* B[kk:kk+kc, jj:jj+nc] into panels of NR columns, each kc x NR, the last one zero-padded. */
static void pack(double *restrict out, const double *restrict B, int64_t NJ, int64_t kk, int64_t kc,
                 int64_t jj, int64_t nc) {
    for (int64_t p = 0; p < nc; p += NR) {
        int64_t w = nc - p < NR ? nc - p : NR;
        double *panel = out + p * kc;
        for (int64_t k = 0; k < kc; k++) {
            const double *src = B + (kk + k) * NJ + jj + p;
            double *dst = panel + k * NR;
            for (int64_t j = 0; j < w; j++) dst[j] = src[j];
            for (int64_t j = w; j < NR; j++) dst[j] = 0.0;
        }
    }
}

void gemm(const double *restrict A, const double *restrict B, double *restrict C, double alpha, double beta,
          int64_t NI, int64_t NJ, int64_t NK, int64_t A_first, int64_t A_count, int64_t C_first,
          int64_t C_count, MPI_Fint comm, uint8_t *restrict workspace, int64_t workspace_size) {
    (void)NI; (void)A_first; (void)A_count; (void)C_first; (void)comm; (void)workspace; (void)workspace_size;
    const int64_t rows = C_count;
    if (rows == 0) return;                         /* no rows here: nothing to compute, nothing to send */
    double *packed = malloc((size_t)(KC * NC) * sizeof *packed);
    double *T = malloc((size_t)(rows * NC) * sizeof *T);   /* A @ B for one block of columns */
    for (int64_t jj = 0; jj < NJ; jj += NC) {
        const int64_t nc = NJ - jj < NC ? NJ - jj : NC;
        memset(T, 0, (size_t)(rows * NC) * sizeof *T);
        for (int64_t kk = 0; kk < NK; kk += KC) {
            const int64_t kc = NK - kk < KC ? NK - kk : KC;
            pack(packed, B, NJ, kk, kc, jj, nc);
            for (int64_t i = 0; i < rows; i += MR) {
                const int64_t mr = rows - i < MR ? rows - i : MR;
                const double *a[MR];
                for (int r = 0; r < MR; r++)
                    a[r] = A + (i + (r < mr ? r : 0)) * NK + kk;
                for (int64_t p = 0; p < nc; p += NR)
                    micro(kc, a[0], a[1], a[2], a[3], packed + p * kc, T + i * NC + p, NC, mr,
                          nc - p < NR ? nc - p : NR);
            }
        }
        for (int64_t i = 0; i < rows; i++) {
            double *c = C + i * NJ + jj;
            const double *t = T + i * NC;
            for (int64_t j = 0; j < nc; j++)
                c[j] = alpha * t[j] + beta * c[j];
        }
    }
    free(T);
    free(packed);
}
