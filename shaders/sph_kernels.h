/* SPH smoothing kernels of Müller, Charypar and Gross (2003), written once
 * for both C (tests, CPU references) and GLSL (modules' shaders): only the
 * float arithmetic both languages share. r2 = |r|^2, h the support radius;
 * every kernel is zero for r >= h. Gradients are returned as the factor g
 * with grad W(r_vec) = g * r_vec, r_vec = x_i - x_j (PHYSICS.md, SPH). */
#ifndef EDDY_SPH_KERNELS_H
#define EDDY_SPH_KERNELS_H

#if defined(VULKAN) || defined(GL_SPIRV) /* GLSL (glslc, shaderc) */
#define EDDY_KFN
#else
#include <math.h>
#include <stdbool.h>
#define EDDY_KFN static inline
#endif

#define EDDY_PI_F 3.14159265358979f

/* W_poly6 = 315 / (64 pi h^9) (h^2 - r^2)^3 */
EDDY_KFN float eddy_w_poly6(float r2, float h)
{
    float h2 = h * h;
    if (r2 >= h2)
        return 0.0f;
    float h9 = h2 * h2 * h2 * h2 * h;
    float d = h2 - r2;
    return 315.0f / (64.0f * EDDY_PI_F * h9) * d * d * d;
}

/* grad W_poly6 = -945 / (32 pi h^9) (h^2 - r^2)^2 r_vec */
EDDY_KFN float eddy_grad_poly6(float r2, float h)
{
    float h2 = h * h;
    if (r2 >= h2)
        return 0.0f;
    float h9 = h2 * h2 * h2 * h2 * h;
    float d = h2 - r2;
    return -945.0f / (32.0f * EDDY_PI_F * h9) * d * d;
}

/* lap W_poly6 = -945 / (32 pi h^9) (h^2 - r^2) (3 h^2 - 7 r^2) */
EDDY_KFN float eddy_lap_poly6(float r2, float h)
{
    float h2 = h * h;
    if (r2 >= h2)
        return 0.0f;
    float h9 = h2 * h2 * h2 * h2 * h;
    return -945.0f / (32.0f * EDDY_PI_F * h9) * (h2 - r2) * (3.0f * h2 - 7.0f * r2);
}

/* W_spiky = 15 / (pi h^6) (h - r)^3 */
EDDY_KFN float eddy_w_spiky(float r2, float h)
{
    if (r2 >= h * h)
        return 0.0f;
    float d = h - sqrt(r2);
    float h3 = h * h * h;
    return 15.0f / (EDDY_PI_F * h3 * h3) * d * d * d;
}

/* grad W_spiky = -45 / (pi h^6) (h - r)^2 r_vec / r; zero at r = 0, where
 * the direction is undefined (two particles at one point push nothing). */
EDDY_KFN float eddy_grad_spiky(float r2, float h)
{
    if (r2 >= h * h || r2 <= 0.0f)
        return 0.0f;
    float r = sqrt(r2);
    float d = h - r;
    float h3 = h * h * h;
    return -45.0f / (EDDY_PI_F * h3 * h3) * d * d / r;
}

/* W_visc = 15 / (2 pi h^3) (-r^3 / (2 h^3) + r^2 / h^2 + h / (2 r) - 1) */
EDDY_KFN float eddy_w_visc(float r2, float h)
{
    if (r2 >= h * h || r2 <= 0.0f)
        return 0.0f;
    float r = sqrt(r2);
    float h3 = h * h * h;
    return 15.0f / (2.0f * EDDY_PI_F * h3) *
           (-r * r2 / (2.0f * h3) + r2 / (h * h) + h / (2.0f * r) - 1.0f);
}

/* lap W_visc = 45 / (pi h^6) (h - r) */
EDDY_KFN float eddy_lap_visc(float r2, float h)
{
    if (r2 >= h * h)
        return 0.0f;
    float h3 = h * h * h;
    return 45.0f / (EDDY_PI_F * h3 * h3) * (h - sqrt(r2));
}

/* The equation of state p = k (rho - rho0) (Pa for k in m^2/s^2 and rho in
 * kg/m^3); clamp_negative: no pressure below rest density (a free surface
 * without the pull that negative pressure gives and that makes particles
 * clump, the tensile instability). */
EDDY_KFN float eddy_sph_pressure(float k, float rho, float rho0, bool clamp_negative)
{
    float p = k * (rho - rho0);
    return clamp_negative && p < 0.0f ? 0.0f : p;
}

/* The SPH pressure force of a pair, as a force density on i (N/m^3) per
 * unit grad W: f_i = -eddy_sph_pair(...) * grad W(x_i - x_j). symmetric
 * (the default): rho_i m_j (p_i / rho_i^2 + p_j / rho_j^2), interior limit
 * -grad p; otherwise Müller et al. 2003: m_j (p_i + p_j) / (2 rho_j),
 * interior limit -grad p / 2. Both are antisymmetric pair forces once
 * multiplied by V_i = m_i / rho_i (momentum is conserved). */
EDDY_KFN float eddy_sph_pair(bool symmetric, float m_j, float rho_i, float p_i, float rho_j, float p_j)
{
    return symmetric ? rho_i * m_j * (p_i / (rho_i * rho_i) + p_j / (rho_j * rho_j))
                     : m_j * (p_i + p_j) / (2.0f * rho_j);
}

/* A boundary sample (a wall ghost, a body's particle) of volume V at rest
 * density rho0 carrying the fluid particle's own pressure p_i: the force
 * density on i is -p_i V eddy_sph_boundary(...) grad W, the pair term above
 * with m_j = rho0 V, rho_j = rho0, p_j = p_i. */
EDDY_KFN float eddy_sph_boundary(bool symmetric, float rho_i, float rho0)
{
    return symmetric ? rho0 / rho_i + rho_i / rho0 : 1.0f;
}

/* The same sample carrying p_i + rho0 a . (x_j - x_i) instead (fluid at rest
 * under acceleration a beyond it): the extra force density on i is
 * -eddy_sph_boundary_lever(...) V (a . (x_j - x_i)) grad W, the pair term's
 * p_j part: rho_i (symmetric) or rho0 / 2 (Müller). */
EDDY_KFN float eddy_sph_boundary_lever(bool symmetric, float rho_i, float rho0)
{
    return symmetric ? rho_i : 0.5f * rho0;
}

#endif
