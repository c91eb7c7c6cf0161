/* jacobi_1d on R MPI ranks: the vectors dealt out in contiguous blocks (hpcab show jacobi_1d --mpi).
   hpcab-distribution: A=block B=block

   Deep halos: instead of swapping one point each way before every half sweep (A into B, or
   B into A), the ranks swap H points of both vectors every H half sweeps and compute the
   ghost points redundantly, a region that shrinks by one point a side per half sweep, so the
   owned points are exact after H of them. The same trick blocks the time loop inside a rank:
   each tile of the rank's segment is copied with H ghost points a side into a window that
   fits in cache, advanced H half sweeps there, and its owned points written back (one pass
   over memory per H half sweeps instead of one per half sweep). Every point is computed
   from the same three values as the reference's, in the same order, so the result is
   bit-for-bit the reference's. */
#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define DEPTH 32      /* half sweeps per halo exchange, at most */
#define TILE 2048     /* owned points per cache window (>= DEPTH) */

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

/* dst[i] for i in [0, n), from src[i - 1 .. i + 1]. */
static void line(double *restrict dst, const double *restrict src, int64_t n) {
    for (int64_t i = 0; i < n; i++)
        dst[i] = 0.33333 * (src[i - 1] + src[i] + src[i + 1]);
}

/* J half sweeps on a window holding the global points [w0, w1) of both vectors (a, b), the
   first of them half sweep number s (even: A into B). A side of the window that is not the
   end of the vector loses one valid point per half sweep; the end points are held fixed. */
static void sweeps(double *a, double *b, int64_t w0, int64_t w1, int64_t N, int64_t s, int64_t J) {
    for (int64_t m = 0; m < J; m++) {
        int64_t lo = w0 == 0 ? 1 : w0 + 1 + m, hi = w1 == N ? N - 1 : w1 - 1 - m;
        if (lo >= hi) continue;
        if ((s + m) % 2 == 0)
            line(b + (lo - w0), a + (lo - w0), hi - lo);
        else
            line(a + (lo - w0), b + (lo - w0), hi - lo);
    }
}

/* Local points [x0, x1) (relative to the rank's first) of one vector into out: from the left
   halo (x < 0), the saved old points before the tile (x < t0), the rank's tile, the right halo. */
static void gather(double *out, int64_t x0, int64_t x1, const double *left, const double *carry,
                   const double *tile, const double *right, int64_t t0, int64_t n, int64_t H) {
    for (int64_t x = x0; x < x1;) {
        int64_t end;
        const double *from;
        if (x < 0) { end = min64(x1, 0); from = left + (x + H); }
        else if (x < t0) { end = min64(x1, t0); from = carry + (x - (t0 - H)); }
        else if (x < n) { end = min64(x1, n); from = tile + x; }
        else { end = x1; from = right + (x - n); }
        memcpy(out + (x - x0), from, (size_t)(end - x) * sizeof *out);
        x = end;
    }
}

void jacobi_1d(double *restrict A, double *restrict B, int64_t TSTEPS, int64_t N,
               int64_t A_first, int64_t A_count, int64_t B_first, int64_t B_count,
               MPI_Fint comm, uint8_t *restrict workspace, int64_t workspace_size) {
    (void)B_first; (void)B_count; (void)workspace; (void)workspace_size;
    MPI_Comm c = MPI_Comm_f2c(comm);
    int rank, size;
    MPI_Comm_rank(c, &rank);
    MPI_Comm_size(c, &size);
    const int64_t f = A_first, n = A_count;
    /* Block: rank r owns points iff r < N; one with none has nothing to exchange (its
       neighbours see it as absent) and nothing to compute. */
    if (n == 0) return;
    int owners = N < size ? (int)N : size;
    int prev = rank > 0 ? rank - 1 : -1, next = rank + 1 < owners ? rank + 1 : -1;
    /* Every owner has at least N / owners points: a halo that deep comes from the nearest
       neighbour alone. */
    const int64_t depth = min64(DEPTH, N / owners);
    const int64_t W = TILE + 2 * DEPTH;
    double *mem = malloc((size_t)(8 * DEPTH + 2 * W) * sizeof *mem);
    double *left = mem, *right = mem + 2 * DEPTH, *sendl = mem + 4 * DEPTH, *sendr = mem + 6 * DEPTH;
    double *wa = mem + 8 * DEPTH, *wb = wa + W;
    double carry_a[DEPTH], carry_b[DEPTH];
    const int64_t total = 2 * TSTEPS;                  /* half sweeps */
    for (int64_t s = 0; s < total; s += depth) {
        const int64_t H = min64(depth, total - s);
        /* H points of A then of B each way (n >= H: every owner has at least depth). */
        MPI_Request req[4];
        int nr = 0;
        if (prev >= 0) {
            memcpy(sendl, A, (size_t)H * sizeof *A);
            memcpy(sendl + H, B, (size_t)H * sizeof *B);
            MPI_Irecv(left, (int)(2 * H), MPI_DOUBLE, prev, 0, c, &req[nr++]);
            MPI_Isend(sendl, (int)(2 * H), MPI_DOUBLE, prev, 1, c, &req[nr++]);
        }
        if (next >= 0) {
            memcpy(sendr, A + (n - H), (size_t)H * sizeof *A);
            memcpy(sendr + H, B + (n - H), (size_t)H * sizeof *B);
            MPI_Irecv(right, (int)(2 * H), MPI_DOUBLE, next, 1, c, &req[nr++]);
            MPI_Isend(sendr, (int)(2 * H), MPI_DOUBLE, next, 0, c, &req[nr++]);
        }
        MPI_Waitall(nr, req, MPI_STATUSES_IGNORE);
        /* Tiles left to right; a tile's window reads the H old points before it, which the
           tile before has already overwritten: saved in carry_a/carry_b beforehand. */
        for (int64_t t0 = 0; t0 < n; t0 += TILE) {
            int64_t t1 = min64(n, t0 + TILE);
            int64_t w0 = max64(0, f + t0 - H), w1 = min64(N, f + t1 + H);
            int64_t x0 = w0 - f, x1 = w1 - f;
            gather(wa, x0, x1, left, carry_a, A, right, t0, n, H);
            gather(wb, x0, x1, left + H, carry_b, B, right + H, t0, n, H);
            if (t1 < n) {                              /* t1 - t0 = TILE >= H */
                memcpy(carry_a, A + (t1 - H), (size_t)H * sizeof *A);
                memcpy(carry_b, B + (t1 - H), (size_t)H * sizeof *B);
            }
            sweeps(wa, wb, w0, w1, N, s, H);
            memcpy(A + t0, wa + (t0 - x0), (size_t)(t1 - t0) * sizeof *A);
            memcpy(B + t0, wb + (t0 - x0), (size_t)(t1 - t0) * sizeof *B);
        }
    }
    free(mem);
}
