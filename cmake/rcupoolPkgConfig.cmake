# SPDX-License-Identifier: LGPL-2.1-or-later
# Writes and installs rcupool's .pc files at install time, so that they
# name the prefix the files go to: `cmake --install B --prefix P` as well
# as the prefix given when configuring. Included by the install script
# (CMakeLists.txt's install(CODE)), where CMAKE_INSTALL_PREFIX is the
# install-time prefix and DESTDIR the staging folder, if any.
#
# Input: RCUPOOL_PC_TEMPLATES (the configured templates, whose @...@ left
# are the three below), RCUPOOL_PC_OUT_DIR (a folder of the build tree),
# RCUPOOL_PC_LIBDIR and RCUPOOL_PC_INCLUDEDIR (CMAKE_INSTALL_LIBDIR and
# CMAKE_INSTALL_INCLUDEDIR as configured: relative to the prefix or
# absolute).
#
# prefix= is
#   - ${pcfiledir}/.. up to the prefix, when the library folder is inside
#     the prefix: the tree can be moved anywhere and used as it is;
#   - the prefix itself, normalised, for a staged install (DESTDIR: a
#     package's files name their final paths), for the system prefixes
#     /usr and /usr/local (never moved; pkgconf drops /usr/include and the
#     system library folders from the flags only when spelled plainly),
#     and when the library folder is absolute (outside the prefix).
# libdir= and includedir= are ${prefix}/DIR, or DIR when it is absolute.

get_filename_component(_rcupool_prefix "${CMAKE_INSTALL_PREFIX}" ABSOLUTE)
foreach(_rcupool_dir LIBDIR INCLUDEDIR)
  if(IS_ABSOLUTE "${RCUPOOL_PC_${_rcupool_dir}}")
    set(_rcupool_pc_${_rcupool_dir} "${RCUPOOL_PC_${_rcupool_dir}}")
    set(_rcupool_abs_${_rcupool_dir} "${RCUPOOL_PC_${_rcupool_dir}}")
  else()
    set(_rcupool_pc_${_rcupool_dir} "\${prefix}/${RCUPOOL_PC_${_rcupool_dir}}")
    get_filename_component(_rcupool_abs_${_rcupool_dir}
      "${_rcupool_prefix}/${RCUPOOL_PC_${_rcupool_dir}}" ABSOLUTE)
  endif()
endforeach()
set(_rcupool_pc_dir "${_rcupool_abs_LIBDIR}/pkgconfig")

if(NOT "$ENV{DESTDIR}" STREQUAL "" OR
   IS_ABSOLUTE "${RCUPOOL_PC_LIBDIR}" OR
   _rcupool_prefix MATCHES "^/usr(/local)?$")
  set(RCUPOOL_PC_PREFIX "${_rcupool_prefix}")
else()
  file(RELATIVE_PATH _rcupool_up "${_rcupool_pc_dir}" "${_rcupool_prefix}")
  string(REGEX REPLACE "/$" "" _rcupool_up "${_rcupool_up}")
  set(RCUPOOL_PC_PREFIX "\${pcfiledir}/${_rcupool_up}")
endif()
set(RCUPOOL_PC_LIBDIR "${_rcupool_pc_LIBDIR}")
set(RCUPOOL_PC_INCLUDEDIR "${_rcupool_pc_INCLUDEDIR}")

set(_rcupool_pc_files "")
foreach(_rcupool_template IN LISTS RCUPOOL_PC_TEMPLATES)
  get_filename_component(_rcupool_name "${_rcupool_template}" NAME_WE)
  set(_rcupool_out "${RCUPOOL_PC_OUT_DIR}/${_rcupool_name}.pc")
  configure_file("${_rcupool_template}" "${_rcupool_out}" @ONLY)
  list(APPEND _rcupool_pc_files "${_rcupool_out}")
endforeach()
file(INSTALL DESTINATION "${_rcupool_pc_dir}" TYPE FILE FILES ${_rcupool_pc_files})
