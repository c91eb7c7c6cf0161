/* A correct gemm that sleeps 150 ms per call: slow enough to kill a judge mid-grade. */
#include <stdint.h>
#include <time.h>

void gemm(const double *restrict A, const double *restrict B, double *restrict C,
          double alpha, double beta, int64_t NI, int64_t NJ, int64_t NK,
          uint8_t *restrict workspace, int64_t workspace_size)
{
    (void)workspace; (void)workspace_size;
    struct timespec pause = {0, 150000000};
    nanosleep(&pause, 0);
    for (int64_t i = 0; i < NI; i++) {
        double *restrict c = C + i * NJ;
        for (int64_t j = 0; j < NJ; j++)
            c[j] *= beta;
        for (int64_t k = 0; k < NK; k++) {
            const double a = alpha * A[i * NK + k];
            const double *restrict b = B + k * NJ;
            for (int64_t j = 0; j < NJ; j++)
                c[j] += a * b[j];
        }
    }
}
