/* Aborts on purpose (SIGABRT), as a failed assert would. */
#include <stdint.h>
#include <stdlib.h>
void gemm(const double *restrict A, const double *restrict B, double *restrict C,
          double alpha, double beta, int64_t NI, int64_t NJ, int64_t NK,
          uint8_t *restrict workspace, int64_t workspace_size)
{
    abort();
}
