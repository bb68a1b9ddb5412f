# shellcheck shell=bash
# For ci/afl-build.sh (sourced, from the repository root): what to compile, read from
# CMakeLists.txt, and which kernels there are, read from ref/kernels.c, so the script keeps
# no list of its own that could drift. (The OSS-Fuzz build, ci/oss-fuzz-build.sh, goes
# through CMake and asks `snafu kernels` instead.)

# cmake_list NAME: the words of set(NAME ...) or add_executable(NAME ...) in CMakeLists.txt
cmake_list() {
	awk -v var="$1" '
		!on && ($0 ~ "^[ \t]*set\\(" var "([ \t)]|$)" || $0 ~ "^[ \t]*add_executable\\(" var "([ \t)]|$)") {
			on = 1; sub("^[^(]*\\(" var, "")
		}
		on {
			line = $0; sub("#.*", "", line)
			if (i = index(line, ")")) { line = substr(line, 1, i - 1); on = 0; done = 1 }
			n = split(line, w, /[ \t]+/)
			for (j = 1; j <= n; j++) if (w[j] != "") print w[j]
			if (done) exit
		}' CMakeLists.txt
}

# cmake_words NAME: cmake_list NAME with each ${OTHER} replaced by OTHER's words
cmake_words() {
	local w
	for w in $(cmake_list "$1"); do
		case "$w" in
		'${'*'}') w=${w#'${'} && cmake_words "${w%'}'}" ;;
		*) echo "$w" ;;
		esac
	done
}

# srcs_of NAME: cmake_words NAME, checked: not empty, C files only, every one present
srcs_of() {
	local list f
	list=$(cmake_words "$1")
	if [ -z "$list" ]; then
		echo "CMakeLists.txt: no $1 source list found (renamed?)" >&2
		return 1
	fi
	for f in $list; do
		case "$f" in
		*.c) [ -f "$f" ] || { echo "CMakeLists.txt: $1 names $f, which does not exist" >&2; return 1; } ;;
		*) echo "CMakeLists.txt: $1: '$f' is not a C source file" >&2; return 1 ;;
		esac
	done
	echo "$list"
}

# listed_kernels: the kernels of ref/kernels.c, in order, without the test-only ones
listed_kernels() {
	awk '
		/\.name = "/ { if (name != "" && !test) print name; name = $0; sub(/.*\.name = "/, "", name); sub(/".*/, "", name); test = 0 }
		/\.test_only = true/ { test = 1 }
		END { if (name != "" && !test) print name }' ref/kernels.c
}

# target_name KERNEL: futex_mm_fuzzer_KERNEL with dots and dashes as underscores
target_name() {
	echo "futex_mm_fuzzer_$(tr '.-' '__' <<<"$1")"
}
