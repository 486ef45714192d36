/* volk's loader compiled into libeddy where the system ships volk as source
 * (Debian's libvulkan-volk-dev puts volk.c beside volk.h on the include
 * path) instead of as a library that dependency('volk') finds. Found through
 * the compiler's include path, never by an absolute path. */
#include <volk.c>
