/* hotspot on R MPI ranks: the chip's rows dealt out in blocks, the power map split the same
   way (hpcab show hotspot --mpi). Each step every rank swaps one halo row of the old
   temperatures with each neighbour, computes the rows that need no halo while the messages
   travel, then its first and last rows; the new grid goes to a second buffer, and the two
   swap roles each step. A neighbour outside the grid is the cell itself, as in the reference.
   hpcab-distribution: temp=block power=block */
#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The model's coefficients, computed as the reference computes them. */
typedef struct { double sc, rx, ry, rz, amb; } Model;

static Model model(int64_t R, int64_t C) {
    const double t_chip = 0.0005, chip_height = 0.016, chip_width = 0.016, k_si = 100.0;
    const double spec_heat_si = 1.75e6, factor_chip = 0.5, max_pd = 3.0e6, precision = 0.001;
    double grid_height = chip_height / (double)R, grid_width = chip_width / (double)C;
    double cap = factor_chip * spec_heat_si * t_chip * grid_width * grid_height;
    Model m;
    m.rx = grid_width / (2.0 * k_si * t_chip * grid_height);
    m.ry = grid_height / (2.0 * k_si * t_chip * grid_width);
    m.rz = t_chip / (k_si * grid_height * grid_width);
    double max_slope = max_pd / (factor_chip * t_chip * spec_heat_si);
    double step = precision / max_slope;
    m.sc = step / cap;
    m.amb = 80.0;
    return m;
}

/* One cell, in the reference's order of operations. */
static inline double cell(double t, double n, double s, double w, double e, double p, Model m) {
    return t + m.sc * (p + (s + n - 2.0 * t) / m.ry + (e + w - 2.0 * t) / m.rx + (m.amb - t) / m.rz);
}

/* One row of the new grid from the old rows above (up), itself (mid) and below (down). */
static void row(double *restrict out, const double *restrict up, const double *restrict mid,
                const double *restrict down, const double *restrict p, int64_t C, Model m) {
    if (C == 1) {
        out[0] = cell(mid[0], up[0], down[0], mid[0], mid[0], p[0], m);
        return;
    }
    out[0] = cell(mid[0], up[0], down[0], mid[0], mid[1], p[0], m);
    for (int64_t c = 1; c < C - 1; c++)
        out[c] = cell(mid[c], up[c], down[c], mid[c - 1], mid[c + 1], p[c], m);
    out[C - 1] = cell(mid[C - 1], up[C - 1], down[C - 1], mid[C - 2], mid[C - 1], p[C - 1], m);
}

/* Row l of the rank's tile; lo and hi hold the neighbours' rows first - 1 and first + count
   (unused at the grid's top and bottom, where the row itself stands in). */
static void local_row(double *dst, const double *src, const double *power, const double *lo, const double *hi,
                      int64_t l, int64_t count, int top, int bottom, int64_t C, Model m) {
    const double *mid = src + l * C;
    const double *up = l > 0 ? mid - C : top ? mid : lo;
    const double *down = l < count - 1 ? mid + C : bottom ? mid : hi;
    row(dst + l * C, up, mid, down, power + l * C, C, m);
}

void hotspot(double *restrict temp, const double *restrict power, int64_t NT, int64_t R, int64_t C,
             int64_t temp_first, int64_t temp_count, int64_t power_first, int64_t power_count,
             MPI_Fint comm, uint8_t *restrict workspace, int64_t workspace_size) {
    (void)temp_first; (void)power_first; (void)power_count; (void)workspace; (void)workspace_size;
    MPI_Comm c = MPI_Comm_f2c(comm);
    int rank, size;
    MPI_Comm_rank(c, &rank);
    MPI_Comm_size(c, &size);
    const int64_t count = temp_count;
    /* Block rows: rank r owns some iff r < R; one with none has nothing to exchange (its
       neighbours see it as absent) and nothing to compute. */
    if (count == 0) return;
    int owners = R < size ? (int)R : size;
    int prev = rank > 0 ? rank - 1 : -1, next = rank + 1 < owners ? rank + 1 : -1;
    const Model m = model(R, C);
    double *mem = malloc((size_t)((count + 2) * C) * sizeof *mem);
    double *lo = mem, *hi = mem + C, *work = mem + 2 * C;
    double *cur = temp, *nxt = work;
    for (int64_t t = 0; t < NT; t++) {
        MPI_Request req[4];
        int n = 0;
        if (prev >= 0) {
            MPI_Irecv(lo, (int)C, MPI_DOUBLE, prev, 0, c, &req[n++]);
            MPI_Isend(cur, (int)C, MPI_DOUBLE, prev, 1, c, &req[n++]);
        }
        if (next >= 0) {
            MPI_Irecv(hi, (int)C, MPI_DOUBLE, next, 1, c, &req[n++]);
            MPI_Isend(cur + (count - 1) * C, (int)C, MPI_DOUBLE, next, 0, c, &req[n++]);
        }
        for (int64_t l = 1; l < count - 1; l++)
            local_row(nxt, cur, power, lo, hi, l, count, prev < 0, next < 0, C, m);
        MPI_Waitall(n, req, MPI_STATUSES_IGNORE);
        local_row(nxt, cur, power, lo, hi, 0, count, prev < 0, next < 0, C, m);
        if (count > 1)
            local_row(nxt, cur, power, lo, hi, count - 1, count, prev < 0, next < 0, C, m);
        double *swap = cur; cur = nxt; nxt = swap;
    }
    if (cur != temp)
        memcpy(temp, cur, (size_t)(count * C) * sizeof *temp);
    free(mem);
}
