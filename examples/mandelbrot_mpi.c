/* mandelbrot on R MPI ranks: the grid's rows dealt out cyclically, with their imaginary
   parts y (hpcab show mandelbrot --mpi; docs/mpi.md). Escape times differ wildly between
   rows (the set sits in the middle of the view), so blocks of rows would leave the ranks
   with the outer rows idle; rows r, r + R, r + 2R, ... give every rank a share of each
   region. A rank's tiles line up: its local row l has imaginary part y[l] and writes
   count, zr and zi at row l. No messages: the x coordinates are replicated and each point
   depends on nothing else.
   Fixed point as in the reference: reals times 2^26 in int64, products shifted right
   (arithmetically) by 26, escape when zr^2 + zi^2 >= 4 * 2^52; a point stops iterating once
   it has escaped (nothing changes for it afterwards), and a count of MAXITER - 1 becomes 0.
   hpcab-distribution: y=cyclic count=cyclic zr=cyclic zi=cyclic */
#include <mpi.h>
#include <stdint.h>

#define LANES 8
#define HORIZON ((int64_t)1 << 54)        /* 4 in units of 2^-52 */

/* LANES neighbouring points of one row iterated together (independent multiplies keep the
   pipeline full), until all of them have escaped or MAXITER is reached. */
static void points(const int64_t *restrict cr, int64_t ci, int n, int64_t maxiter, int64_t *restrict count,
                   int64_t *restrict zr, int64_t *restrict zi) {
    int64_t a[LANES] = {0}, b[LANES] = {0}, k[LANES] = {0}, c[LANES] = {0};
    for (int l = 0; l < LANES; l++)           /* spare lanes repeat the last point: no longer orbit */
        c[l] = cr[l < n ? l : n - 1];
    for (int64_t it = 0; it < maxiter; it++) {
        int live = 0;
        for (int l = 0; l < LANES; l++) {
            const int64_t rr = a[l] * a[l], ii = b[l] * b[l], ri = a[l] * b[l];
            const int active = rr + ii < HORIZON;
            k[l] = active ? it : k[l];
            a[l] = active ? ((rr - ii) >> 26) + c[l] : a[l];
            b[l] = active ? ((2 * ri) >> 26) + ci : b[l];
            live |= active;
        }
        if (!live)
            break;
    }
    for (int l = 0; l < n; l++) {
        count[l] = k[l] == maxiter - 1 ? 0 : k[l];
        zr[l] = a[l];
        zi[l] = b[l];
    }
}

void mandelbrot(const int64_t *restrict x, const int64_t *restrict y, int64_t *restrict count,
                int64_t *restrict zr, int64_t *restrict zi, int64_t XN, int64_t YN, int64_t MAXITER,
                int64_t y_first, int64_t y_count, int64_t count_first, int64_t count_count,
                int64_t zr_first, int64_t zr_count, int64_t zi_first, int64_t zi_count,
                MPI_Fint comm, uint8_t *restrict workspace, int64_t workspace_size) {
    (void)YN; (void)y_first; (void)count_first; (void)count_count; (void)zr_first; (void)zr_count;
    (void)zi_first; (void)zi_count; (void)comm; (void)workspace; (void)workspace_size;
    for (int64_t l = 0; l < y_count; l++)
        for (int64_t j = 0; j < XN; j += LANES) {
            const int n = XN - j < LANES ? (int)(XN - j) : LANES;
            const int64_t at = l * XN + j;
            points(x + j, y[l], n, MAXITER, count + at, zr + at, zi + at);
        }
}
