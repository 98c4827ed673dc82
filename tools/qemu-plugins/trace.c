/* trace.c: a qemu TCG plugin (user mode) for the constant-time check of the ARM kernels.
 *
 *   qemu-aarch64 -plugin trace.so,begin=0xADDR,end=0xADDR -d plugin prog ...
 *
 * Between the first execution of the instruction at `begin` and the next at `end` (the
 * harness's ct_trace_begin / ct_trace_end, found with nm), every executed instruction's
 * address and every load's and store's data address (with its direction and size) go
 * into two running 64-bit FNV-1a hashes; at exit it prints the counts and the hashes.
 * Two runs with different secrets must print the same line. Declarations: qemu's stable
 * plugin API, version 1 (qemu 4.2 to 8.x; Debian's qemu ships no plugin header).
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t qemu_plugin_id_t;
typedef uint32_t qemu_plugin_meminfo_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
typedef struct qemu_info_t qemu_info_t;
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS };
enum qemu_plugin_mem_rw { QEMU_PLUGIN_MEM_R = 1, QEMU_PLUGIN_MEM_W, QEMU_PLUGIN_MEM_RW };
typedef void (*tb_trans_cb)(qemu_plugin_id_t, struct qemu_plugin_tb *);
typedef void (*udata_cb)(qemu_plugin_id_t, void *);
typedef void (*vcpu_udata_cb)(unsigned int, void *);
typedef void (*vcpu_mem_cb)(unsigned int, qemu_plugin_meminfo_t, uint64_t, void *);
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t, tb_trans_cb);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *, size_t);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *, vcpu_udata_cb,
                                            enum qemu_plugin_cb_flags, void *);
void qemu_plugin_register_vcpu_mem_cb(struct qemu_plugin_insn *, vcpu_mem_cb,
                                      enum qemu_plugin_cb_flags, enum qemu_plugin_mem_rw, void *);
unsigned int qemu_plugin_mem_size_shift(qemu_plugin_meminfo_t);
int qemu_plugin_mem_is_store(qemu_plugin_meminfo_t);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t, udata_cb, void *);
void qemu_plugin_outs(const char *);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

static uint64_t begin_pc, end_pc, n_insns, n_mem, h_insns = 14695981039346656037ull,
                                                  h_mem = 14695981039346656037ull;
static int active;

static uint64_t fnv(uint64_t h, uint64_t v) {
    for (int i = 0; i < 8; i++, v >>= 8) h = (h ^ (v & 0xff)) * 1099511628211ull;
    return h;
}

static void on_insn(unsigned int vcpu, void *udata) {
    uint64_t pc = (uint64_t)(uintptr_t)udata;
    (void)vcpu;
    if (pc == begin_pc) active = 1;
    if (pc == end_pc) active = 0;
    if (!active) return;
    n_insns++;
    h_insns = fnv(h_insns, pc);
}

static void on_mem(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr, void *udata) {
    (void)vcpu, (void)udata;
    if (!active) return;
    n_mem++;
    h_mem = fnv(h_mem, vaddr ^ ((uint64_t)qemu_plugin_mem_is_store(info) << 63) ^
                           ((uint64_t)qemu_plugin_mem_size_shift(info) << 60));
}

static void on_tb(qemu_plugin_id_t id, struct qemu_plugin_tb *tb) {
    (void)id;
    size_t n = qemu_plugin_tb_n_insns(tb);
    for (size_t i = 0; i < n; i++) {
        struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
        uint64_t pc = qemu_plugin_insn_vaddr(insn);
        qemu_plugin_register_vcpu_insn_exec_cb(insn, on_insn, QEMU_PLUGIN_CB_NO_REGS,
                                               (void *)(uintptr_t)pc);
        qemu_plugin_register_vcpu_mem_cb(insn, on_mem, QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_MEM_RW,
                                         NULL);
    }
}

static void at_exit(qemu_plugin_id_t id, void *p) {
    char line[160];
    (void)id, (void)p;
    snprintf(line, sizeof line, "trace: insns %" PRIu64 " %016" PRIx64 " mem %" PRIu64 " %016" PRIx64 "\n",
             n_insns, h_insns, n_mem, h_mem);
    qemu_plugin_outs(line);
}

__attribute__((visibility("default"))) int qemu_plugin_install(qemu_plugin_id_t id,
                                                               const qemu_info_t *info, int argc,
                                                               char **argv) {
    (void)info;
    for (int i = 0; i < argc; i++) {
        if (strncmp(argv[i], "begin=", 6) == 0) begin_pc = strtoull(argv[i] + 6, NULL, 0);
        if (strncmp(argv[i], "end=", 4) == 0) end_pc = strtoull(argv[i] + 4, NULL, 0);
    }
    if (!begin_pc || !end_pc) {
        qemu_plugin_outs("trace: begin= and end= are required\n");
        return -1;
    }
    qemu_plugin_register_vcpu_tb_trans_cb(id, on_tb);
    qemu_plugin_register_atexit_cb(id, at_exit, NULL);
    return 0;
}
