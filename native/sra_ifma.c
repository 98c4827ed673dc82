/* AVX-512 IFMA kernels (placeholder until written). */
#include "sra_core.h"
#if defined(SRA_HAVE_IFMA)
int sra_cpu_has_ifma(void) { return 0; }
const sra_kernel sra_kernel_ifma = {"ifma", 1, 0, 0, 0, 0};
const sra_kernel sra_kernel_ifma8 = {"ifma8", 8, 0, 0, 0, 0};
#endif
