#!/bin/sh
# Usage: expect-no-crash.sh <astra-opt> <file.cu>...
# Runs each mode of astra-opt that parses and rewrites on each file. Exit 0
# is a result; exit 1 must come with a Clang-style `error:` line; anything
# else (a signal, exit 3) fails. Prints one line per run.
A=$1; shift
status=0
err=$(mktemp)
for f in "$@"; do
  for mode in --list-rewrites --print-kernel-model --list-options; do
    "$A" $mode "$f" > /dev/null 2> "$err"
    rc=$?
    echo "$(basename "$f") $mode: exit $rc"
    if [ $rc -eq 1 ]; then
      grep -q "error: " "$err" || { echo "  exit 1 without an error line"; status=1; }
    elif [ $rc -ne 0 ]; then
      cat "$err"; status=1
    fi
  done
done
rm -f "$err"
[ $status -eq 0 ] && echo "all inputs handled"
exit $status
