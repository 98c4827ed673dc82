/* Portable Montgomery kernel with 32-bit limbs and uint64_t products: the path
 * for targets without a 128-bit integer type (32-bit ARM). */
#include "sra_core.h"

#define SRA_L uint32_t
#define SRA_DL uint64_t
#define SRA_LB 32
#define SRA_FN(x) sra_c32_##x
#include "sra_scalar.h"

const sra_kernel sra_kernel_c32 = {"c32", 1, sra_c32_rbits, sra_c32_init, sra_c32_free_state,
                                   sra_c32_pow};
