# Sourced by the MPI tests (dist_test.sh, run_test.sh): Open MPI's settings
# for this machine and CI, a temporary folder removed at exit, and fail().
# CI runs as root; Open MPI refuses that unless told.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Shared memory and self only: no network is needed or reachable.
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
# More ranks than cores, beside other tests: a rank waiting in a collective
# yields its core instead of spinning, and no rank is pinned to a core.
export OMPI_MCA_mpi_yield_when_idle=1 OMPI_MCA_hwloc_base_binding_policy=none
# In the sanitized suite AddressSanitizer and UBSan still check every
# access, but leaks are not looked for: Open MPI 4.1 leaks at exit from
# components it has already unloaded, whose frames no suppression can name.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; cat "$tmp/err" 2>/dev/null; exit 1; }
