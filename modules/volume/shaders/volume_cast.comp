#version 450
// volume.cast, one thread per pixel: the view ray starts in the tet that
// holds the eye (volume.geometry finds it) or else enters the mesh at the
// nearest boundary face facing it, steps from tet to tet through
// the exit face of the smallest positive lambda (seed 003 section 5.1),
// composites each segment front to back from the table (scalars at entry
// and exit from the tet's gradient; volume_cast_point.comp takes the
// transfer function at the segment's middle instead), and after leaving
// through a boundary face looks for the next boundary face along the ray
// (the pixel's list from volume.raster, else the BVH), as often as the
// mesh needs. Guards: at most P.table.z tets a ray, and EDDY_VOLUME_STALL
// zero-length segments in a row end it (rays along edges of degenerate
// tets); NaN never reaches a pixel (comparisons are written so NaN fails).
// Writes premultiplied colour and opacity, and the distance along the ray
// to the first hit (+inf: none).
#extension GL_GOOGLE_include_directive : require
#include "volume_cast.glsl"
