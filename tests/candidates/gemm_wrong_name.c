/* Compiles, but exports the wrong symbol. */
#include <stdint.h>
void gemm_kernel(double *C) { C[0] = 0.0; }
