/* Does not compile on purpose: an undeclared identifier. */
#include <stdint.h>
void gemm(const double *restrict A, const double *restrict B, double *restrict C,
          double alpha, double beta, int64_t NI, int64_t NJ, int64_t NK,
          uint8_t *restrict workspace, int64_t workspace_size)
{
    C[0] = undeclared_variable;
}
