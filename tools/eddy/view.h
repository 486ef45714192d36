/* eddy view (view.c): the viewer, eddy's own Vulkan host. */
#ifndef EDDY_TOOL_VIEW_H
#define EDDY_TOOL_VIEW_H

/* `eddy view SCENE [options]`: argv as main's (argv[1] is "view"). */
int eddy_view_main(int argc, char **argv);

#endif
