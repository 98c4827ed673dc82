# CMake toolchain: cross-compile the native core for 64-bit ARM Linux (aarch64, the
# arm64-v8a stand-in) with Debian's gcc-aarch64-linux-gnu against a Debian arm64 sysroot.
# Used by tools/cross-build.sh, which makes the sysroot and passes BLU21_SYSROOT.
set(BLU21_CROSS_TRIPLET aarch64-linux-gnu)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
include(${CMAKE_CURRENT_LIST_DIR}/debian-cross.cmake)
