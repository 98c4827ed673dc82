# CMake toolchain: cross-compile the native core for 32-bit ARM Linux (armhf: ARMv7-A,
# Thumb-2, VFPv3-D16, the armeabi-v7a stand-in) with Debian's gcc-arm-linux-gnueabihf
# against a Debian armhf sysroot. 32-bit ARM has no __int128, so this build exercises the
# portable 32-bit-limb code paths. Used by tools/cross-build.sh (passes BLU21_SYSROOT).
set(BLU21_CROSS_TRIPLET arm-linux-gnueabihf)
set(CMAKE_SYSTEM_PROCESSOR armv7l)
include(${CMAKE_CURRENT_LIST_DIR}/debian-cross.cmake)
