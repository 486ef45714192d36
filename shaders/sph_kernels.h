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

/* The equation of state (Pa for k in m^2/s^2 and rho in kg/m^3), k = c0^2
 * the squared speed of sound at rest density (dp/drho = k there):
 *  - linear (tait false): p = k (rho - rho0), Müller et al. 2003;
 *  - Tait (tait true): p = rho0 k / 7 ((rho / rho0)^7 - 1) (Monaghan 1994,
 *    Becker and Teschner 2007): stiffer the more the fluid is compressed, so a
 *    speed of sound ten times the flow's holds density within about 1%.
 * clamp_negative: no pressure below rest density (a free surface without the
 * pull that negative pressure gives and that makes particles clump, the
 * tensile instability). The power is multiplied out so that C and GLSL round
 * alike. */
EDDY_KFN float eddy_sph_pressure(bool tait, float k, float rho, float rho0, bool clamp_negative)
{
    float p;
    if (tait) {
        float x = rho / rho0, x2 = x * x;
        p = rho0 * k / 7.0f * (x2 * x2 * x2 * x - 1.0f);
    } else {
        p = k * (rho - rho0);
    }
    return clamp_negative && p < 0.0f ? 0.0f : p;
}

/* Monaghan's artificial viscosity (Monaghan 1992, beta = 0) as a force
 * density on i per unit grad W: f_i = -eddy_sph_artificial(...) * grad W(x_i -
 * x_j), with vr = (v_i - v_j) . (x_i - x_j). Pairs that approach (vr < 0)
 * get Pi = -alpha c h vr / ((r^2 + 0.01 h^2) (rho_i + rho_j) / 2), and the
 * force density rho_i m_j Pi: antisymmetric once multiplied by V_i, so
 * momentum is conserved; separating pairs get none. h is the support
 * radius (Monaghan's smoothing length is about half of it: alpha here is
 * about twice his for the same dissipation). */
EDDY_KFN float eddy_sph_artificial(float alpha, float c, float h, float vr, float r2, float rho_i,
                                   float rho_j, float m_j)
{
    if (vr >= 0.0f)
        return 0.0f;
    float pi = -2.0f * alpha * c * h * vr / ((r2 + 0.01f * h * h) * (rho_i + rho_j));
    return rho_i * m_j * pi;
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

/* DFSPH (modules/sph/shaders/sph_dfsph.glsl has the equations and why each
 * choice). The wall ghosts carry the particle's pressure, k_g = p_i /
 * rho0^2, which pairs with k_i = p_i / rho_i^2 to this factor on k_i. */
EDDY_KFN float eddy_dfsph_ghost_factor(float rho_i, float rho0)
{
    float q = rho_i / rho0;
    return 1.0f + q * q;
}

/* The pressure solves' diagonal, up to its factor: DFSPH's beta_i's
 * denominator over L (sph_dfsph.glsl), S_i . T_i + Q_i, IISPH's -a_ii /
 * (dt^2 L) = -c_i . M_i + D_i (sph_iisph_diag.comp), with st the product
 * of the two gradient sums (S . T, -c . M), mags the product of their
 * lengths and q the pairs' own part (Q, D); at least a quarter of the
 * aligned value mags + q. The sums weigh a particle's neighbours by two
 * kernels and the ghosts and boundary particles by B_i in one alone, so
 * where fluid on one side and a boundary on the other nearly balance, st
 * can be near zero or negative while both sums are large: the diagonal
 * then vanished or changed sign (DFSPH: no push at all while a body pressed
 * the particle harder each substep, then one that threw it out at 15 m/s;
 * IISPH: an infinite pressure by a cube held at 45 degrees across the
 * water line). An underestimate of beta (a larger |a_ii|) slows the Jacobi
 * iterations; an overestimate can make them diverge. */
EDDY_KFN float eddy_sph_solve_denominator(float st, float mags, float q)
{
    float aligned = 0.25f * (mags + q);
    return st + q > aligned ? st + q : aligned;
}

/* The share of the last substep's K_i the constant-density phase starts
 * from: half where rho_i >= rho0, none where rho_i <= 0.99 rho0, linear
 * between. */
EDDY_KFN float eddy_dfsph_warm(float rho_i, float rho0)
{
    float w = (rho_i / rho0 - 0.99f) / 0.01f;
    return 0.5f * (w < 0.0f ? 0.0f : w > 1.0f ? 1.0f : w);
}

/* The share of the divergence the divergence-free phase corrects: none
 * below 0.7 rho0 (a free surface's cut-short sum), all from 0.9 rho0,
 * linear between. */
EDDY_KFN float eddy_dfsph_sufficient(float rho_i, float rho0)
{
    float w = (rho_i / rho0 - 0.7f) / 0.2f;
    return w < 0.0f ? 0.0f : w > 1.0f ? 1.0f : w;
}

#endif
