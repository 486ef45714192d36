/* Neighbour lists of the fluid modules (shaders/neighbours.glsl): their
 * capacity on a device and their buffer. */
#ifndef EDDY_MODULES_NLIST_H
#define EDDY_MODULES_NLIST_H

#include "eddy/eddy.h"

#include <stdio.h>

/* The capacity `cap` entries a particle for n particles, or 0 (no lists:
 * every neighbour loop scans the grid cells, with the same results) where
 * cap x n would be over the device's texel limit or the shaders' int texel
 * index. */
static inline uint32_t eddy_nlist_capacity(eddy_engine *e, const char *system, uint64_t cap, uint64_t n)
{
    uint64_t max_texels = eddy_engine_device(e)->max_texel_buffer_elements;
    if (max_texels > 0x7fffffffu)
        max_texels = 0x7fffffffu;
    if (cap * n > max_texels) {
        eddy_log(e, EDDY_LOG_INFO, "system.no_lists", "system '%s': neighbour_list %llu times %llu particles is over "
                 "the device's %llu texels; its neighbour loops scan the grid cells instead", system,
                 (unsigned long long)cap, (unsigned long long)n, (unsigned long long)max_texels);
        return 0;
    }
    return (uint32_t)cap;
}

/* The list buffer "<system>.sorted.neighbours": only ever bound as texels,
 * so it may exceed maxStorageBufferRange. */
static inline eddy_buffer eddy_nlist_buffer(eddy_engine *e, const char *system, uint64_t cap, uint64_t n)
{
    char label[160];
    snprintf(label, sizeof label, "%s.sorted.neighbours", system);
    return eddy_create_buffer(e, &(eddy_buffer_desc){ EDDY_SIZED(eddy_buffer_desc), .size = cap && n ? 4 * cap * n : 16, .label = label,
                                                      .texel_only = true });
}

#endif
