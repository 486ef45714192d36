// Shared by the radix sort kernels: 4-bit digits, blocks of 1024 keys
// (256 threads x 4 contiguous keys each).
#ifndef EDDY_RADIX_GLSL
#define EDDY_RADIX_GLSL

#define EDDY_RADIX_DIGITS 16u
#define EDDY_RADIX_BLOCK 1024u

layout(push_constant) uniform P {
    uint count;   // keys
    uint shift;   // bit position of this pass's digit
    uint blocks;  // ceil(count / 1024)
} pc;

uint eddy_digit(uint key)
{
    return (key >> pc.shift) & 15u;
}

#endif
