/* ballistic: particles under gravity bouncing off the scene's box walls.
 * The simplest eddy module, and the example to copy when writing one. */
#ifndef EDDY_BALLISTIC_H
#define EDDY_BALLISTIC_H

#include "eddy/eddy_module.h"

/* The push constants of ballistic.comp (std430 push block layout). */
typedef struct eddy_ballistic_params {
    float gravity_dt[4]; /* xyz gravity (m/s^2), w substep (s) */
    float box_min_e[4];  /* xyz box minimum (m), w restitution (1) */
    float box_max[4];    /* xyz box maximum (m), w unused */
    uint32_t count;      /* particles */
    uint32_t pad[3];
} eddy_ballistic_params;

const eddy_module_desc *eddy_ballistic_module(void);

/* One substep of one particle on the CPU, exactly as the shader does it
 * (the tests' reference). pos: xyz + radius, vel: xyz + 0. */
void eddy_ballistic_step_cpu(const eddy_ballistic_params *p, float pos[4], float vel[4]);

#endif
