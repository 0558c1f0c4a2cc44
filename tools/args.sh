# SPDX-License-Identifier: LGPL-2.1-or-later
# The command-line handling the scripts of tools/ share. Not a command: a
# script sources it after naming itself in SCRIPT (the name its messages
# give, which under `bazel run` is not the name of $0):
#
#   SCRIPT=format.sh
#   . "$(dirname "$0")/args.sh" || exit 2
#
# POSIX sh, for the /bin/sh scripts as for the bash ones. Every target and
# test that runs one of those scripts carries this file beside it.
#
#   usage_from_header   the script's opening comment on stdout, without
#                       its "#!" line, its license line and the comment
#                       marks: the --help of a script whose header is its
#                       usage
#   bad_usage MESSAGE   "SCRIPT: MESSAGE (see tools/SCRIPT --help)" on
#                       stderr, then exit 2
#   parse_check ARG...  the arguments of a script that takes at most one,
#                       --check: sets check to 1 for it (to "" for none),
#                       prints the script's usage (a function it defines)
#                       and exits 0 for -h or --help, and calls bad_usage
#                       for anything else
#   parse_check_print ARG...
#                       the arguments of a script that takes --check and
#                       --print, in any order: sets
#                       check and print to 1 for those given (to "" for
#                       the others), prints the usage and exits 0 for -h
#                       or --help, and calls bad_usage for anything else
#   check_usage         the usage of such a script on stdout: its syntax
#                       line, then the text on stdin (what the script does
#                       and what --check does), then the line for --help
#   stamp_ready STAMP WANT PRINTED MISSING
#                       for a script that makes something and stamps it
#                       (after parse_check_print): when STAMP's first line
#                       is WANT, prints PRINTED under --print and exits 0;
#                       otherwise, under --check, prints MISSING and exits
#                       1; otherwise returns
#   steps LABEL N       starts a count of N long steps for say and fail
#   say TEXT            "LABEL: [i/N] TEXT", the next step's line
#   fail TEXT           "LABEL: TEXT" on stderr, then exit 1

usage_from_header() {
  sed -n '1d; /^#/!q; /^# SPDX-License-Identifier:/d; s/^# \{0,1\}//p' "$0"
}

bad_usage() {
  echo "$SCRIPT: $1 (see tools/$SCRIPT --help)" >&2
  exit 2
}

parse_check() {
  check=""
  [ $# -le 1 ] || bad_usage "one argument at most"
  case "${1-}" in
    "") ;;
    --check) check=1 ;;
    -h|--help) usage; exit 0 ;;
    *) bad_usage "unknown argument: $1" ;;
  esac
}

parse_check_print() {
  check=""
  print=""
  while [ $# -gt 0 ]; do
    case "$1" in
      --check) check=1 ;;
      --print) print=1 ;;
      -h|--help) usage; exit 0 ;;
      *) bad_usage "unknown argument: $1" ;;
    esac
    shift
  done
}

check_usage() {
  echo "usage: tools/$SCRIPT [--check]"
  echo
  cat
  echo "  -h, --help  this text"
}

stamp_ready() {
  if [ -f "$1" ] && [ "$(head -n 1 "$1")" = "$2" ]; then
    [ -z "$print" ] || echo "$3"
    exit 0
  fi
  if [ -n "$check" ]; then
    echo "$4"
    exit 1
  fi
}

steps() {
  steps_label=$1
  steps_total=$2
  steps_done=0
}

say() {
  steps_done=$((steps_done + 1))
  echo "$steps_label: [$steps_done/$steps_total] $*"
}

fail() {
  echo "$steps_label: $*" >&2
  exit 1
}
