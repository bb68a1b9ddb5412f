#!/bin/bash -eu
# ClusterFuzzLite (and OSS-Fuzz) run this as $SRC/build.sh with CC, CXX, CFLAGS, CXXFLAGS,
# LIB_FUZZING_ENGINE, SANITIZER, OUT and WORK set. The repository's ./build.sh sees
# LIB_FUZZING_ENGINE and OUT and hands over to ci/oss-fuzz-build.sh, which builds through
# CMake: one fuzz target per fixed kernel in $OUT, each with its seed corpus, dictionary
# and options.
cd "$SRC/snafu"
exec ./build.sh
