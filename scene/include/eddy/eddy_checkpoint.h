/* eddy_checkpoint.h: what a module's checkpoint callback calls
 * (eddy_module_desc.checkpoint) to declare its state, in libeddy-scene.
 *
 * A checkpoint is an HDF5 file (docs/checkpoint.md): a system's
 * declarations become datasets of group /systems/<system>/, a set buffer's
 * of /sets/<set>/, each `count` rows of `components` values with a "unit"
 * attribute and a Fletcher32 checksum. Declarations are valid during the
 * callback only; one thread at a time per engine, as every scene call. */
#ifndef EDDY_CHECKPOINT_H
#define EDDY_CHECKPOINT_H

#include "eddy/eddy.h"
#include "eddy/eddy_module.h"
#include "eddy/eddy_output.h" /* eddy_pvd_entry */

#ifdef __cplusplus
extern "C" {
#endif

/* At most this many declarations a system, and bytes of host values a
 * declaration (a device buffer is bounded by its own size). */
#define EDDY_CHECKPOINT_MAX_ITEMS 256
#define EDDY_CHECKPOINT_MAX_VALUES_BYTES (64ull << 20)

/* Declares the whole of device buffer b as state: eddy_buffer_size(b)
 * bytes, stored as rows of `components` values of `type` (the size must
 * divide evenly). Saving downloads it; restoring uploads the file's
 * content in place after checking its type and extent. A buffer of a
 * particle set goes to the set's group (name is then the set buffer's
 * name), any other to the system's. name: 1..63 bytes, letters, digits,
 * '_', '.' and '-'. unit: SI unit, "1" for none (NULL = "1"). Fails with a
 * message (checkpoint.invalid, checkpoint.mismatch, checkpoint.io) and
 * the failure stops the save or restore. Waits: for the transfer. */
EDDY_API eddy_result eddy_checkpoint_buffer(eddy_checkpoint *cp, const char *name, eddy_buffer b,
                                            eddy_state_type type, uint32_t components, const char *unit);
/* One device buffer of a system's state, for eddy_checkpoint_buffers. */
typedef struct eddy_checkpoint_item {
    const char *name;           /* as eddy_checkpoint_buffer's */
    eddy_buffer buffer;         /* a zero handle: the system has none (skipped) */
    eddy_state_type type;
    uint32_t components;
    const char *unit;           /* SI unit; NULL = "1" */
} eddy_checkpoint_item;
/* eddy_checkpoint_buffer for each of count items in order, those with a
 * zero buffer skipped (a buffer only some variants of a module create);
 * stops at the first failure and returns it. Waits: for the transfers. */
EDDY_API eddy_result eddy_checkpoint_buffers(eddy_checkpoint *cp, const eddy_checkpoint_item *items, uint32_t count);
/* Declares count x components host values of `type` at data (owned by
 * the caller) as state: saved from data, or restored into it. At most
 * EDDY_CHECKPOINT_MAX_VALUES_BYTES. Never waits. */
EDDY_API eddy_result eddy_checkpoint_values(eddy_checkpoint *cp, const char *name, void *data,
                                            eddy_state_type type, uint64_t count, uint32_t components,
                                            const char *unit);
/* Declares a system's own .pvd series (its files so far, as its
 * write_frame keeps them): saved as "<name>.time" (s) and "<name>.files"
 * (the file names, each NUL-terminated); restored into a new array
 * (malloc'd, names strdup'd, as the module frees them) that replaces
 * *entries and *count after the old one is freed. Restored names must
 * each be one file name part (no '/', no ".."); at most 2^24 entries.
 * Never waits. */
EDDY_API eddy_result eddy_checkpoint_series(eddy_checkpoint *cp, const char *name, eddy_pvd_entry **entries,
                                            uint32_t *count);
/* true while a checkpoint is being restored into the system (after its
 * declarations return, the values are in place), false while one is
 * saved. */
EDDY_API bool eddy_checkpoint_restoring(const eddy_checkpoint *cp);

#ifdef __cplusplus
}
#endif
#endif
