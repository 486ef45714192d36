/* eddy voxelize: see voxelize.c. */
#ifndef EDDY_TOOL_VOXELIZE_H
#define EDDY_TOOL_VOXELIZE_H

/* argv[1] is "voxelize". Returns the exit status (0, 1 failed, 2 usage). */
int eddy_voxelize_main(int argc, char **argv);

#endif
