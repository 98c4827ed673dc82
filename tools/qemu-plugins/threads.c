/* threads.c: a qemu TCG plugin (user mode) counting retired guest instructions per thread.
 *
 *   qemu-arm -plugin threads.so -d plugin prog ...
 *
 * qemu user mode gives every guest thread its own vCPU; each translation block's run adds
 * its instruction count to that vCPU's counter (a callback, not count.c's shared inline
 * add, which threads running in parallel would race on). At exit it prints one line
 * "thread K insns: N" per vCPU that ran. Used by tools/armcount.py spread (the batch
 * spread over cores). Declarations: qemu's stable plugin API, version 1, as in count.c.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
typedef struct qemu_info_t qemu_info_t;
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS };
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t, struct qemu_plugin_tb *);
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t, void *);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int, void *);
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t, qemu_plugin_vcpu_tb_trans_cb_t);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *, qemu_plugin_vcpu_udata_cb_t,
                                          enum qemu_plugin_cb_flags, void *);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t, qemu_plugin_udata_cb_t, void *);
void qemu_plugin_outs(const char *);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

#define MAX_VCPUS 64
static uint64_t insns[MAX_VCPUS]; /* each written by its own thread only */

static void tb_exec(unsigned int vcpu, void *n) {
    if (vcpu < MAX_VCPUS) insns[vcpu] += (uintptr_t)n;
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb) {
    (void)id;
    qemu_plugin_register_vcpu_tb_exec_cb(tb, tb_exec, QEMU_PLUGIN_CB_NO_REGS,
                                         (void *)(uintptr_t)qemu_plugin_tb_n_insns(tb));
}

static void at_exit(qemu_plugin_id_t id, void *p) {
    char line[64];
    (void)id, (void)p;
    for (int k = 0; k < MAX_VCPUS; k++) {
        if (!insns[k]) continue;
        snprintf(line, sizeof line, "thread %d insns: %" PRIu64 "\n", k, insns[k]);
        qemu_plugin_outs(line);
    }
}

__attribute__((visibility("default"))) int qemu_plugin_install(qemu_plugin_id_t id,
                                                               const qemu_info_t *info,
                                                               int argc, char **argv) {
    (void)info, (void)argc, (void)argv;
    qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
    qemu_plugin_register_atexit_cb(id, at_exit, NULL);
    return 0;
}
