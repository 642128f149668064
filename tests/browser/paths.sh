# paths.sh: where the browser tests find things (sourced by common.sh, demo.sh and lite.sh): $here (tests/browser),
# $src (the repository), $build (WL_BUILD_DIR, else src/build) and $wordlab (WORDLAB, else the build's program).
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
src="$(cd "$here/../.." && pwd)"
build="${WL_BUILD_DIR:-$src/build}"
wordlab="${WORDLAB:-$build/wordlab}"
