/* The SPH kernels of shaders/sph_kernels.h (the same text the shaders
 * compile): each integrates to 1 over its support, gradients integrate to
 * zero, the viscosity Laplacian is positive inside the support, and the
 * gradient and Laplacian factors agree with finite differences of W.
 * Quadrature: midpoint rule on a 160^3 lattice over [-h, h]^3 (tolerance 1e-3);
 * the singular W_visc (1/r at the centre) in spherical shells instead. And
 * DFSPH's floored beta denominator. */
#include "../test.h"
#include "sph_kernels.h"

#include <math.h>

typedef float (*kernel_fn)(float, float);

static double integrate3(kernel_fn w, double h, int n, double grad_out[3], kernel_fn g)
{
    double sum = 0, dx = 2 * h / n, dv = dx * dx * dx;
    for (int a = 0; a < 3; a++)
        grad_out[a] = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            for (int k = 0; k < n; k++) {
                double x = -h + (i + 0.5) * dx, y = -h + (j + 0.5) * dx, z = -h + (k + 0.5) * dx;
                float r2 = (float)(x * x + y * y + z * z);
                sum += w(r2, (float)h) * dv;
                if (g) {
                    double f = g(r2, (float)h);
                    grad_out[0] += f * x * dv, grad_out[1] += f * y * dv, grad_out[2] += f * z * dv;
                }
            }
    return sum;
}

/* Radial integral 4 pi int_0^h W(r) r^2 dr, for kernels singular at 0. */
static double integrate_radial(kernel_fn w, double h, int n)
{
    double sum = 0, dr = h / n;
    for (int i = 0; i < n; i++) {
        double r = (i + 0.5) * dr;
        sum += 4 * M_PI * r * r * w((float)(r * r), (float)h) * dr;
    }
    return sum;
}

int main(void)
{
    const double hs[] = { 0.01, 0.0457, 1.0 };
    for (int k = 0; k < 3; k++) {
        double h = hs[k], grad[3];
        double ip = integrate3(eddy_w_poly6, h, 160, grad, eddy_grad_poly6);
        CHECKF(fabs(ip - 1) < 1e-3, "h %g: poly6 integrates to %.6f", h, ip);
        for (int a = 0; a < 3; a++)
            CHECKF(fabs(grad[a]) * h < 1e-3, "h %g: poly6 gradient integrates to %g along %d", h, grad[a], a);
        double is = integrate3(eddy_w_spiky, h, 160, grad, eddy_grad_spiky);
        CHECKF(fabs(is - 1) < 1e-3, "h %g: spiky integrates to %.6f", h, is);
        for (int a = 0; a < 3; a++)
            CHECKF(fabs(grad[a]) * h < 1e-3, "h %g: spiky gradient integrates to %g along %d", h, grad[a], a);
        double iv = integrate_radial(eddy_w_visc, h, 200000);
        CHECKF(fabs(iv - 1) < 1e-3, "h %g: viscosity kernel integrates to %.6f", h, iv);
        printf("h = %g: poly6 %.6f, spiky %.6f, viscosity %.6f\n", h, ip, is, iv);

        /* Laplacian of W_visc > 0 everywhere inside the support; zero outside. */
        int nonpos = 0;
        for (int i = 0; i < 1000; i++) {
            double r = h * i / 1000.0;
            nonpos += eddy_lap_visc((float)(r * r), (float)h) <= 0;
        }
        CHECKF(nonpos == 0, "h %g: viscosity Laplacian not positive at %d radii", h, nonpos);
        CHECK(eddy_lap_visc((float)(h * h * 1.0001), (float)h) == 0 && eddy_w_poly6((float)(h * h), (float)h) == 0);

        /* Derivatives against central differences of W along x at radii inside. */
        for (int i = 1; i < 10; i++) {
            double r = h * i / 10.0, e = h * 1e-3;
            double dwp = (eddy_w_poly6((float)((r + e) * (r + e)), (float)h) - eddy_w_poly6((float)((r - e) * (r - e)), (float)h)) / (2 * e);
            double dws = (eddy_w_spiky((float)((r + e) * (r + e)), (float)h) - eddy_w_spiky((float)((r - e) * (r - e)), (float)h)) / (2 * e);
            double gp = eddy_grad_poly6((float)(r * r), (float)h) * r, gs = eddy_grad_spiky((float)(r * r), (float)h) * r;
            CHECKF(fabs(gp - dwp) <= 1e-3 * fabs(dwp) + 1e-6 / (h * h * h * h), "h %g r %g: poly6 gradient %g, difference quotient %g", h, r, gp, dwp);
            CHECKF(fabs(gs - dws) <= 1e-3 * fabs(dws) + 1e-6 / (h * h * h * h), "h %g r %g: spiky gradient %g, difference quotient %g", h, r, gs, dws);
            /* Laplacian of poly6: W'' + 2 W' / r in 3D; a wider step, since the
             * second difference of float values loses digits. */
            double E = h * 1e-2, w0 = eddy_w_poly6((float)(r * r), (float)h);
            double wpp = (eddy_w_poly6((float)((r + E) * (r + E)), (float)h) - 2 * w0 + eddy_w_poly6((float)((r - E) * (r - E)), (float)h)) / (E * E);
            double lap = wpp + 2 * dwp / r, lp = eddy_lap_poly6((float)(r * r), (float)h);
            CHECKF(fabs(lp - lap) <= 2e-2 * fabs(lap) + 1e-3 * fabs(eddy_lap_poly6(0, (float)h)), "h %g r %g: poly6 Laplacian %g, differences %g", h, r, lp, lap);
        }
    }
    /* The pressure solves' diagonal (DFSPH's beta, IISPH's a_ii): S . T + Q where S and T are aligned, never
     * below a quarter of the aligned |S||T| + Q (opposed, orthogonal), and
     * continuous where the floor takes over. */
    CHECK(eddy_sph_solve_denominator(6.0f, 6.0f, 1.0f) == 7.0f);
    CHECK(eddy_sph_solve_denominator(-6.0f, 6.0f, 1.0f) == 1.75f);
    CHECK(eddy_sph_solve_denominator(0.0f, 6.0f, 1.0f) == 1.75f);
    CHECK(eddy_sph_solve_denominator(0.75f, 6.0f, 1.0f) == 1.75f);
    CHECK(eddy_sph_solve_denominator(0.76f, 6.0f, 1.0f) > 1.75f && eddy_sph_solve_denominator(0.76f, 6.0f, 1.0f) < 1.77f);
        return test_report("sph_kernels");
}
