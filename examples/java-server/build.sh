#!/bin/sh
# Build the mixbatch Java server: JDK 17 standard library only.
set -e
cd "$(dirname "$0")"
rm -rf build
mkdir -p build
javac --release 17 -d build $(find src -name '*.java')
