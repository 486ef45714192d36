/* eddy_messages.h: the identifiers of eddy's messages (included by eddy.h).
 * A program acts on these, not on the English text, which may change. The
 * list is checked against the sources by tests/unit/message_ids.py: every
 * identifier eddy logs is here, and every one here is logged somewhere. */
#ifndef EDDY_MESSAGES_H
#define EDDY_MESSAGES_H

/* Message identifiers: "area.what". Every message eddy logs carries one; the
 * default log (no callback) prints "eddy LEVEL [id]: message", and so does
 * the `eddy` tool. Modules loaded from libraries may add their own under
 * their module's name ("mymodule.what"). Levels: E error, W warning,
 * I info, D debug (shown with eddy_engine_desc.verbose).
 *
 * Engine and device
 *   device.no_vulkan       E  the Vulkan loader or a driver is missing
 *   device.none            E  no Vulkan device, or none matches eddy_engine_desc.device
 *   device.unsupported     E  the device lacks what eddy needs (Vulkan 1.2, a compute
 *                             queue, timeline semaphores, a memory type, a format feature)
 *   device.chosen          D  which device the engine runs on
 *   validation.unavailable E  validation was asked for but the layer is not installed
 *   adopt.invalid          E  eddy_adopt_desc is incomplete or its Vulkan is older than 1.2
 *   vulkan.call            E  a Vulkan call failed; the message names it and its VkResult
 *   memory.host            E  out of host memory
 *   memory.device          E  device memory exhausted: the heap budget, or an allocation failed
 *   handle.invalid         E  a handle that is not live (destroyed, another engine's), or a
 *                             NULL engine or scene (then on stderr: no engine to log through)
 *   api.null               E  a NULL pointer a function reads or writes its values through
 *   desc.size              E  a desc's struct_size is 0, smaller than its first version or
 *                             larger than this library's (set it with EDDY_SIZED)
 *   wait.unsubmitted       E  eddy_wait for a timeline value no submission signals
 *   submit.invalid         E  eddy_graph_submit_after: no desc, too many waits, a NULL semaphore
 *   pipeline_cache.foreign W  the cache file was written by another device or driver;
 *                             ignored, and replaced when the engine ends
 *   pipeline_cache.corrupt W  the cache file is damaged, not eddy's, or refused by the
 *                             driver; ignored, and replaced when the engine ends
 *   pipeline_cache.unwritable W the cache file could not be written back
 *   pipeline_cache.loaded  D  bytes loaded from the cache file
 *   profile.unavailable    W  the queue has no timestamps; no per-pass profile
 *   message.unidentified   E  (any level) a module logged a message with a NULL identifier
 * Buffers, images, transfers
 *   buffer.invalid         E  a size of 0, data larger than the buffer, a misaligned fill,
 *                             overlapping copy ranges
 *   buffer.too_large       E  over maxStorageBufferRange or maxMemoryAllocationSize
 *   buffer.range           E  bytes outside the buffer
 *   image.invalid          E  a format, shape, usage or filter eddy does not accept
 *   image.unsupported      E  the device lacks a feature of the format for that usage
 *   image.too_large        E  over maxImageDimension*D or the device-local heap
 *   image.range            E  a region outside the image, or no data given
 *   transfer.too_large     E  more than the staging ring takes in one submission
 * Kernels, passes, graphs
 *   kernel.glsl            E  the GLSL does not compile; the compiler's message follows
 *   kernel.spirv           E  not valid SPIR-V, or not exactly one of spirv and glsl given
 *   kernel.unsupported     E  a binding type eddy does not bind (not a storage buffer,
 *                             storage image or combined image sampler)
 *   kernel.workgroup       E  workgroup size outside 1..maxComputeWorkGroupInvocations
 *   kernel.invalid         E  too many specialization constants
 *   kernel.pipeline        E  the driver could not create the pipeline
 *   pass.binding           E  a binding is missing, extra, not live or of the wrong kind
 *                             (buffer for image, dimensions, image usage)
 *   pass.access            E  a declared access the shader contradicts (READ on a binding
 *                             it writes, WRITE on one it reads) or that the kind forbids
 *   pass.invalid           E  push constants or indirect arguments out of their rules
 *   dispatch.too_large     E  more workgroups than maxComputeWorkGroupCount
 *   graph.invalid          E  a repeat range, recording or description arguments, out of their rules
 *   graph.host_use         E  an eddy_host_use whose access is not made by its stages, or
 *                             that names a buffer and an image
 *   graph.destroyed_resource E a graph binds a buffer, image or kernel that was destroyed;
 *                             the graph cannot run
 *   record.unfinished      E  a wait for a host recording not known to have finished (no
 *                             done_semaphore, and no eddy_recorded_work_done yet)
 * Primitives and particle sets
 *   prims.invalid          E  scan, sort, reduce or grid arguments out of their rules
 *   grid.too_large         E  a grid's cell tables over maxStorageBufferRange
 *   particles.invalid      E  a set's name, count, capacity or buffer layout is wrong
 *   particles.name_taken   E  a particle set of that name exists already
 *   particles.not_finite   E  particles with a NaN or infinite position (at an output; over MPI
 *                             ranks also by the particle's rank after each substep)
 *   particles.outside      W  particles whose centre is past a wall of the scene's box (at an output)
 *   particles.clamped      W  particles a module's box limit put back since the last output
 * Modules and their systems
 *   module.abi             E  built for another module ABI or descriptor size
 *   module.invalid         E  the descriptor lacks a required field
 *   module.name_taken      E  a module of that name is registered already
 *   module.load            E  the library cannot be loaded or exports no descriptor
 *   module.loaded          D  a module library was loaded
 *   system.invalid         E  a system's parameters or sets are wrong for its module
 *   system.unstable        E  the substep is above the module's stability bound
 *   system.walls_too_soft  E  the wall stiffness cannot hold a body at rest on the floor
 *   system.too_large       E  the box spans too many cells of the module's grids
 *   system.diverged        E  the simulation produced a non-finite tool position or force
 *   system.no_port         E  the system has no input or output of that name, or the
 *                             scene gives the input no path
 *   system.tool_clamped    W  a driven tool was kept inside the box walls
 *   system.unconverged     W  an iterative solve stopped at its iteration limit before its
 *                             tolerance (per output frame: how many substeps, the errors)
 *   system.no_lists        I  the neighbour lists would exceed the device's texel buffer limit:
 *                             the system scans the grid cells instead (same results)
 * Scenes (eddy_load_scene); the message starts with the file and the field
 *   scene.invalid          E  eddy_load_scene was given neither a path nor JSON text
 *   scene.file             E  the scene file cannot be read
 *   scene.json             E  not JSON, not an object, or a key given twice
 *   scene.unknown_field    E  a field this version does not know; the known ones follow
 *   scene.missing_field    E  a required field is missing
 *   scene.field            E  a field has the wrong type, or a value out of its range
 *   scene.name             E  a name that cannot name files, or one that is taken
 *   scene.too_large        E  particles or steps over a device limit or the host budget
 *   scene.mesh             E  a mesh file of a fill cannot be read or bounds no solid
 *   scene.mesh_unreferenced W  a tetrahedral mesh has vertices no tet uses (they stay put)
 *   scene.plugin_refused   E  the scene names module libraries and plugins are not allowed
 *   scene.unknown_module   E  a system names a module that is not registered
 *   scene.unknown_set      E  a system names a particle set the scene does not have
 *   scene.unknown_system   E  a call names a system the scene does not have
 *   scene.unknown_param    E  eddy_scene_system_param names a parameter the module does not have
 *   scene.system           E  a module could not set up a system (its own message is first)
 *   scene.no_view          E  eddy_scene_system_view names a system whose module draws no picture
 *   scene.record           E  eddy_scene_record's arguments out of their rules
 *   adaptive.limited       W  max_substeps are too few for a stable adaptive substep
 * Checkpoints (eddy_scene_save, eddy_scene_desc.checkpoint; docs/checkpoint.md); the
 * message starts with the checkpoint file
 *   checkpoint.invalid     E  not an eddy checkpoint: not HDF5, truncated or damaged (its seal's
 *                             length or CRC-32 does not match), counters no run of the scene has,
 *                             or a bad declaration by a module (name, type, size)
 *   checkpoint.mismatch    E  a dataset of another type or extent than the scene's, or one whose
 *                             checksum fails
 *   checkpoint.version     E  written by a newer eddy or in a newer format
 *   checkpoint.foreign     E  saved from another scene (its scene hash differs)
 *   checkpoint.unsupported E  a system's module declares no checkpoint state (module ABI < 4.4)
 *   checkpoint.system      E  a module could not save or restore its state, or the restored
 *                             substeps' step graph could not be made
 *   checkpoint.io          E  the checkpoint cannot be written, synced or renamed into place
 *   run.invalid            E  eddy_scene_run_with's options out of their rules
 * Runs over MPI ranks (eddy_scene_desc.mpi_comm; docs/distributed.md)
 *   dist.unsupported       E  a scene, system or call that does not run over ranks (yet), or an
 *                             eddy built without MPI given a communicator
 *   dist.split             E  the box cannot be split into the ranks' subdomains
 *   dist.failed            E  another rank failed; the message names it and its cause
 *   dist.too_fast          E  a particle moved farther in one substep than its systems' reach
 *                             allows over ranks (lower dt)
 * Output, rendering, haptics
 *   output.write           E  an output file cannot be created, written or renamed
 *   output.resume          E  a restored scene's output folder is not its run's (no marker, a
 *                             log shorter than at the checkpoint)
 *   output.folder_in_use   E  the output folder holds files that are not an earlier eddy
 *                             run's: give a new or empty folder
 *   output.finished        E  a frame after eddy_scene_finish_output
 *   render.invalid         E  image size, field of view or camera out of their rules, or a set's
 *                             triangle buffer shorter than its triangle count
 *   haptic.invalid         E  eddy_haptic_desc out of its rules
 *   haptic.thread          E  the haptic thread could not be started
 * The `eddy` tool's own
 *   bench.model            E  eddy bench --model: the device file cannot be read, or a field is missing
 *                             or out of range
 *   checkpoint.none        E  eddy run --resume DIR: no checkpoint of the folder is valid
 *   cli.usage              E  an unknown command or option, or a bad option value
 *   mesh.file              E  a mesh file cannot be read or parsed
 *   mesh.invalid           E  a mesh bounds no solid, or cannot be voxelised as asked
 *   run.stopped            E  a run or benchmark stopped early (the cause is logged first)
 *   validation.reported    W  the validation layer reported messages during the run
 *   view.no_display        E  eddy view: no display or no GLFW for a window (--offscreen works)
 *   view.failed            E  eddy view: eddy reported errors while viewing (the exit status is 1)
 */

#endif
