#!/bin/sh
# Build libperf (not packaged by Debian 12) from Debian's linux-source package into a local prefix.
# Usage: tools/build-libperf.sh PREFIX [WORKDIR]
# Only the few directories libperf needs are extracted from the kernel tarball; plain
# `make install` would need asciidoc, so the install targets are named one by one.
set -eu
prefix=$1
work=${2:-$(dirname "$prefix")/libperf-src}
if [ -f "$prefix/lib/libperf.a" ] && [ -f "$prefix/lib/libapi.a" ]; then
	exit 0
fi
mkdir -p "$work"
cd "$work"
deb=$(ls linux-source-6.1_*.deb 2>/dev/null | head -n 1 || true)
if [ -z "$deb" ]; then
	apt-get download linux-source-6.1 >/dev/null 2>&1 || {
		echo "build-libperf: 'apt-get download linux-source-6.1' failed (run apt-get update?)" >&2
		exit 1
	}
	deb=$(ls linux-source-6.1_*.deb | head -n 1)
fi
if [ ! -d src/tools/lib/perf ]; then
	rm -rf src && mkdir src
	dpkg-deb --fsys-tarfile "$deb" | tar -xO --wildcards './usr/src/linux-source-6.1.tar.xz' |
		xz -dc | tar -x -C src --strip-components=1 --wildcards \
			'linux-source-6.1/tools/lib/perf' 'linux-source-6.1/tools/lib/api' \
			'linux-source-6.1/tools/lib/zalloc.c' 'linux-source-6.1/tools/lib/str_error_r.c' \
			'linux-source-6.1/tools/lib/ctype.c' 'linux-source-6.1/tools/lib/string.c' \
			'linux-source-6.1/tools/include' 'linux-source-6.1/tools/build' \
			'linux-source-6.1/tools/scripts' 'linux-source-6.1/tools/arch' \
			'linux-source-6.1/include/uapi' 'linux-source-6.1/scripts' 'linux-source-6.1/Makefile'
fi
make -s -C src/tools/lib/perf prefix="$prefix" libdir_relative=lib EXTRA_CFLAGS=-fPIC \
	libs install_lib install_headers install_pkgconfig >/dev/null
make -s -C src/tools/lib/api EXTRA_CFLAGS=-fPIC >/dev/null
cp src/tools/lib/api/libapi.a "$prefix/lib/"
echo "build-libperf: libperf installed in $prefix"
