# Shared part of the Debian cross toolchains (included by <triplet>.cmake after it sets
# BLU21_CROSS_TRIPLET and CMAKE_SYSTEM_PROCESSOR).
#
# The sysroot is a Debian root of the target architecture holding libc6-dev and the
# target's libpython3.X-dev (made by tools/cross-build.sh with mmdebstrap). FindPython
# then takes the headers, SOABI and flags from the sysroot's <triplet>-python3.X-config
# (a shell script, so it runs on the build host), while Cython runs on the host.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_C_COMPILER ${BLU21_CROSS_TRIPLET}-gcc)
set(CMAKE_LIBRARY_ARCHITECTURE ${BLU21_CROSS_TRIPLET})

if(DEFINED ENV{BLU21_SYSROOT})
  set(BLU21_SYSROOT "$ENV{BLU21_SYSROOT}" CACHE PATH "target root with Python headers")
endif()
if(NOT BLU21_SYSROOT OR NOT EXISTS "${BLU21_SYSROOT}/usr/include")
  message(FATAL_ERROR "Set BLU21_SYSROOT (env or -D) to a ${BLU21_CROSS_TRIPLET} sysroot "
                      "(tools/cross-build.sh makes one under build/cross/)")
endif()
# try_compile runs in a fresh project: hand it the sysroot too.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES BLU21_SYSROOT)

set(CMAKE_SYSROOT "${BLU21_SYSROOT}")
set(CMAKE_FIND_ROOT_PATH "${BLU21_SYSROOT}")
# Host tools (cython, the host python) from the host; headers and libraries only from the
# sysroot.
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# FindPython: look for <triplet>-python3.X-config in the sysroot (Python_ROOT_DIR is a
# HINT, which CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER leaves as it is).
set(Python_ROOT_DIR "${BLU21_SYSROOT}/usr")
