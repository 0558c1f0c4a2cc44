# SPDX-License-Identifier: LGPL-2.1-or-later
# CMake toolchain file: build for aarch64 (arm64) Linux with Debian's
# cross compilers (gcc-aarch64-linux-gnu, g++-aarch64-linux-gnu), against
# the arm64 sysroot of tools/sysroot.sh (tools/setup.sh --arch aarch64).
#
#   cmake -S . -B build-arm64 \
#     -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake \
#     -DRCUPOOL_SYSROOT=$(tools/setup.sh --arch aarch64 --print-sysroot | tail -n 1)
#
# (tools/install.sh --arch aarch64 does this.) A consumer of an arm64
# install uses the same file with -DCMAKE_PREFIX_PATH=<prefix>. The cross
# compilers keep their own C library (/usr/aarch64-linux-gnu); the sysroot
# adds rcupool's dependencies, whose headers and libraries are the only
# ones find_path/find_library accept. Programs run under
# `qemu-aarch64 -L <sysroot>` (CMAKE_CROSSCOMPILING_EMULATOR).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)

# The sysroot: -DRCUPOOL_SYSROOT, else $RCUPOOL_SYSROOT_AARCH64, else
# tools/sysroot.sh's default folder.
if(NOT RCUPOOL_SYSROOT)
  if(DEFINED ENV{RCUPOOL_SYSROOT_AARCH64})
    set(RCUPOOL_SYSROOT "$ENV{RCUPOOL_SYSROOT_AARCH64}")
  elseif(DEFINED ENV{XDG_CACHE_HOME})
    set(RCUPOOL_SYSROOT "$ENV{XDG_CACHE_HOME}/rcupool/sysroot-aarch64")
  else()
    set(RCUPOOL_SYSROOT "$ENV{HOME}/.cache/rcupool/sysroot-aarch64")
  endif()
endif()
if(NOT EXISTS "${RCUPOOL_SYSROOT}/.rcupool-packages")
  message(FATAL_ERROR "no arm64 sysroot at ${RCUPOOL_SYSROOT}: "
                      "run tools/setup.sh --arch aarch64")
endif()
set(RCUPOOL_SYSROOT "${RCUPOOL_SYSROOT}" CACHE PATH "the arm64 sysroot")
# try_compile projects get the toolchain file again: pass the path on.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES RCUPOOL_SYSROOT)

set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH "${RCUPOOL_SYSROOT}")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
# find_package(rcupool) looks in CMAKE_PREFIX_PATH outside the sysroot too.
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)

# liburcu's headers are arch-specific: Debian puts them all under
# include/aarch64-linux-gnu. Shared libraries of the sysroot need each
# other (libXNNPACK needs libcpuinfo and libpthreadpool) at link time.
foreach(_lang C CXX)
  set(CMAKE_${_lang}_STANDARD_INCLUDE_DIRECTORIES
      "${RCUPOOL_SYSROOT}/usr/include/aarch64-linux-gnu")
endforeach()
set(_rcupool_rpath_link
    "-Wl,-rpath-link,${RCUPOOL_SYSROOT}/usr/lib/aarch64-linux-gnu -Wl,-rpath-link,${RCUPOOL_SYSROOT}/lib/aarch64-linux-gnu")
set(CMAKE_EXE_LINKER_FLAGS_INIT "${_rcupool_rpath_link}")
set(CMAKE_SHARED_LINKER_FLAGS_INIT "${_rcupool_rpath_link}")
set(CMAKE_MODULE_LINKER_FLAGS_INIT "${_rcupool_rpath_link}")

set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64 -L "${RCUPOOL_SYSROOT}")
