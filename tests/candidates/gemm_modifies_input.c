/* Correct result, but it scribbles on A, a read-only input (cast away const). */
#include <stdint.h>
void gemm(const double *restrict A, const double *restrict B, double *restrict C,
          double alpha, double beta, int64_t NI, int64_t NJ, int64_t NK,
          uint8_t *restrict workspace, int64_t workspace_size)
{
    for (int64_t i = 0; i < NI; i++) {
        for (int64_t j = 0; j < NJ; j++) C[i * NJ + j] *= beta;
        for (int64_t k = 0; k < NK; k++)
            for (int64_t j = 0; j < NJ; j++) C[i * NJ + j] += alpha * A[i * NK + k] * B[k * NJ + j];
    }
    ((double *)A)[0] = 0.0;
}
