#!/bin/sh
# Builds build/mbserver and build/vectorcheck (one translation unit at a time, -j1).
set -e
cd "$(dirname "$0")"
mkdir -p build/obj
CXX=${CXX:-g++}
FLAGS="-std=c++20 -O2 -Wall -Wextra -pthread"
LIB="util problem uri media part envelope target http_codec content_coding conditional resources representations batch capabilities"
OBJS=""
for f in $LIB; do
  o=build/obj/$f.o
  if [ ! -f "$o" ] || [ src/$f.cpp -nt "$o" ] || [ -n "$(find src -name '*.hpp' -newer "$o")" ]; then
    echo "  CXX $f.cpp"
    $CXX $FLAGS -c src/$f.cpp -o "$o"
  fi
  OBJS="$OBJS $o"
done
for m in server:src/server.cpp vectorcheck:tools/vectorcheck.cpp; do
  n=${m%%:*}; s=${m#*:}; o=build/obj/$n.o
  if [ ! -f "$o" ] || [ "$s" -nt "$o" ] || [ -n "$(find src tools -name '*.hpp' -newer "$o")" ]; then
    echo "  CXX $s"
    $CXX $FLAGS -Isrc -c "$s" -o "$o"
  fi
done
$CXX $FLAGS -o build/mbserver build/obj/server.o $OBJS -lz
$CXX $FLAGS -o build/vectorcheck build/obj/vectorcheck.o $OBJS -lz
echo "built build/mbserver build/vectorcheck"
