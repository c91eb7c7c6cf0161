// A hand-written atax for hpcab in C++: y = A^T (A x).
// One pass over A computes tmp = A x row by row; a second streams the rows again,
// accumulating y += A[i,:] * tmp[i], so both passes read A contiguously.
#include <cstddef>
#include <cstdint>
#include <vector>

extern "C" void atax(const double *__restrict__ A, const double *__restrict__ x,
                     double *__restrict__ y, int64_t M, int64_t N,
                     uint8_t *__restrict__ workspace, int64_t workspace_size)
{
    (void)workspace; (void)workspace_size;
    std::vector<double> tmp(static_cast<size_t>(M));
    for (int64_t i = 0; i < M; ++i) {
        const double *__restrict__ row = A + i * N;
        double s = 0.0;
        for (int64_t j = 0; j < N; ++j)
            s += row[j] * x[j];
        tmp[i] = s;
    }
    for (int64_t j = 0; j < N; ++j)
        y[j] = 0.0;
    for (int64_t i = 0; i < M; ++i) {
        const double *__restrict__ row = A + i * N;
        const double t = tmp[i];
        for (int64_t j = 0; j < N; ++j)
            y[j] += row[j] * t;
    }
}
