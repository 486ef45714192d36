#version 450
// Writes VkDispatchIndirectCommand {ceil(n / 64), 1, 1} from a count on the GPU.
layout(local_size_x = 1) in;
layout(std430, binding = 0) readonly buffer Count { uint n; };
layout(std430, binding = 1) writeonly buffer Args { uint args[3]; };

void main()
{
    args[0] = (n + 63u) / 64u;
    args[1] = 1u;
    args[2] = 1u;
}
