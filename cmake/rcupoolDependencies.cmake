# SPDX-License-Identifier: LGPL-2.1-or-later
# rcupool's system dependencies as imported targets rcupool_deps::<name>.
# Read by rcupool's own CMakeLists.txt and, installed beside
# rcupoolConfig.cmake, by find_package(rcupool), so that a consumer links
# what rcupool's targets need without finding it itself.
#
# Input: RCUPOOL_URCU_FLAVOR (bp or memb); RCUPOOL_DEPS_PREFIX, when set,
# a prefix looked in before the system's folders (tools/deps_newest.sh's). Output: the targets below, and
# rcupool_DEPENDENCIES_FOUND / rcupool_DEPENDENCIES_MISSING. The targets
# for XNNPACK exist only when it is found (RCUPOOL_XNNPACK_FOUND).
#   rcupool_deps::pthreadpool  -lpthreadpool (its header is part of rcupool's API)
#   rcupool_deps::cpuinfo      -lcpuinfo
#   rcupool_deps::urcu         -lurcu-<flavor> -lurcu-common (inline.h inlines it)
#   rcupool_deps::xnnpack      -lXNNPACK
#
# Read again by every find_package(rcupool) (no include guard): imported
# targets are seen only in the directory that made them and below, so two
# sibling subdirectories of one project that each find rcupool each need
# their own targets and their own rcupool_DEPENDENCIES_FOUND. What is found
# is cached, so a second reading only defines the targets where they are
# missing.

find_package(Threads REQUIRED)

set(rcupool_DEPENDENCIES_MISSING "")

function(_rcupool_import name header library)
  string(TOUPPER "${name}" upper)
  set(hints "")
  if(RCUPOOL_DEPS_PREFIX)
    set(hints HINTS "${RCUPOOL_DEPS_PREFIX}")
  endif()
  find_path(RCUPOOL_${upper}_INCLUDE_DIR "${header}" ${hints} PATH_SUFFIXES include)
  find_library(RCUPOOL_${upper}_LIBRARY NAMES ${library} ${ARGN} ${hints} PATH_SUFFIXES lib)
  if(NOT RCUPOOL_${upper}_INCLUDE_DIR OR NOT RCUPOOL_${upper}_LIBRARY)
    set(rcupool_DEPENDENCIES_MISSING
        "${rcupool_DEPENDENCIES_MISSING} ${library}" PARENT_SCOPE)
    return()
  endif()
  if(NOT TARGET rcupool_deps::${name})
    add_library(rcupool_deps::${name} UNKNOWN IMPORTED)
    set_target_properties(rcupool_deps::${name} PROPERTIES
      IMPORTED_LOCATION "${RCUPOOL_${upper}_LIBRARY}"
      INTERFACE_INCLUDE_DIRECTORIES "${RCUPOOL_${upper}_INCLUDE_DIR}"
      INTERFACE_LINK_LIBRARIES Threads::Threads)
  endif()
endfunction()

if(NOT RCUPOOL_URCU_FLAVOR MATCHES "^(bp|memb)$")
  message(FATAL_ERROR "RCUPOOL_URCU_FLAVOR must be bp or memb, not '${RCUPOOL_URCU_FLAVOR}'")
endif()

_rcupool_import(pthreadpool pthreadpool.h pthreadpool)
_rcupool_import(cpuinfo cpuinfo.h cpuinfo)
_rcupool_import(urcu_flavor "urcu/urcu-${RCUPOOL_URCU_FLAVOR}.h" "urcu-${RCUPOOL_URCU_FLAVOR}")
_rcupool_import(urcu_common "urcu/urcu-${RCUPOOL_URCU_FLAVOR}.h" urcu-common)
if(TARGET rcupool_deps::urcu_flavor AND TARGET rcupool_deps::urcu_common AND
   NOT TARGET rcupool_deps::urcu)
  add_library(rcupool_deps::urcu INTERFACE IMPORTED)
  string(TOUPPER "${RCUPOOL_URCU_FLAVOR}" _rcupool_flavor_upper)
  set_target_properties(rcupool_deps::urcu PROPERTIES
    INTERFACE_LINK_LIBRARIES "rcupool_deps::urcu_flavor;rcupool_deps::urcu_common"
    # lib/urcu_flavor.h and inline.h read it: the memb flavour makes the
    # inline read side fall back to the library's calls.
    INTERFACE_COMPILE_DEFINITIONS "RCUPOOL_URCU_${_rcupool_flavor_upper}")
endif()

_rcupool_import(xnnpack xnnpack.h XNNPACK)
if(TARGET rcupool_deps::xnnpack)
  set(RCUPOOL_XNNPACK_FOUND TRUE)
  set_property(TARGET rcupool_deps::xnnpack APPEND PROPERTY
    INTERFACE_LINK_LIBRARIES rcupool_deps::pthreadpool rcupool_deps::cpuinfo)
else()
  set(RCUPOOL_XNNPACK_FOUND FALSE)
  # XNNPACK is optional: not a missing dependency of the core.
  string(REPLACE " XNNPACK" "" rcupool_DEPENDENCIES_MISSING "${rcupool_DEPENDENCIES_MISSING}")
endif()

if(rcupool_DEPENDENCIES_MISSING STREQUAL "")
  set(rcupool_DEPENDENCIES_FOUND TRUE)
else()
  set(rcupool_DEPENDENCIES_FOUND FALSE)
endif()
