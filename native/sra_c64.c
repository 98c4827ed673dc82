/* Portable Montgomery kernel with 64-bit limbs and unsigned __int128 products. */
#include "sra_core.h"

#if defined(__SIZEOF_INT128__)
#define SRA_L uint64_t
#define SRA_DL unsigned __int128
#define SRA_LB 64
#define SRA_FN(x) sra_c64_##x
#include "sra_scalar.h"

const sra_kernel sra_kernel_c64 = {"c64", 1, sra_c64_rbits, sra_c64_init, sra_c64_free_state,
                                   sra_c64_pow};
#endif
