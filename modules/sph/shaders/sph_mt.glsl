// Marching tetrahedra over the surface grid: every cube is cut into the six
// tetrahedra around its main diagonal (the same cut in every cube, so faces
// match and the surface is closed), and each tetrahedron yields 0, 1 or 2
// triangles of the iso-surface c = iso. Edge points are interpolated with
// the two grid vertices in a fixed order, so a point shared by neighbouring
// tetrahedra is computed bit for bit the same and the mesh welds exactly.
#extension GL_GOOGLE_include_directive : require

layout(std430, binding = 0) readonly buffer Field { float field[]; };
layout(push_constant) uniform V {
    vec4 origin_cell;
    ivec4 dims;
    float iso;
} pv;

const ivec3 corner[8] = ivec3[8](ivec3(0, 0, 0), ivec3(1, 0, 0), ivec3(1, 1, 0), ivec3(0, 1, 0),
                                 ivec3(0, 0, 1), ivec3(1, 0, 1), ivec3(1, 1, 1), ivec3(0, 1, 1));
const int tets[24] = int[24](0, 5, 1, 6, 0, 1, 2, 6, 0, 2, 3, 6, 0, 3, 7, 6, 0, 7, 4, 6, 0, 4, 5, 6);

uint mt_cells() { return uint((pv.dims.x - 1) * (pv.dims.y - 1) * (pv.dims.z - 1)); }

ivec3 mt_cell(uint c)
{
    uint cx = uint(pv.dims.x - 1), cy = uint(pv.dims.y - 1);
    return ivec3(c % cx, (c / cx) % cy, c / (cx * cy));
}

uint mt_vertex(ivec3 p) { return uint(p.x) + uint(pv.dims.x) * (uint(p.y) + uint(pv.dims.y) * uint(p.z)); }

vec3 mt_pos(ivec3 p) { return pv.origin_cell.xyz + pv.origin_cell.w * vec3(p); }

uint mt_tet_triangles(uint mask)
{
    uint k = bitCount(mask);
    return k == 0u || k == 4u ? 0u : k == 2u ? 2u : 1u;
}

vec3 mt_edge(ivec3 a, ivec3 b)
{
    uint ia = mt_vertex(a), ib = mt_vertex(b);
    if (ia > ib) {
        ivec3 t = a; a = b; b = t;
        uint u = ia; ia = ib; ib = u;
    }
    float fa = field[ia], fb = field[ib];
    float t = (pv.iso - fa) / (fb - fa);
    vec3 pa = mt_pos(a), pb = mt_pos(b);
    return pa + t * (pb - pa);
}
