#!/usr/bin/env bash
# Builds `archive`, `archive-tui` and `archive-server` for a fast start and installs them.
#
#   scripts/install.sh                      build (release), check, install into ~/.local/bin
#   PREFIX=/usr/local scripts/install.sh    install into /usr/local/bin instead
#   scripts/install.sh --dry-run [--binary PATH]
#                                           print the build and install commands without running
#                                           them; with --binary, run the checks on that binary
#   scripts/install.sh --print-flags DIR    print the build flags one per line, for a build
#                                           whose --scratch-path is DIR (Benchmarks/process.sh)
#   PREFIX=/usr/local scripts/install.sh --service
#                                           also install deploy/archive-server.service (its
#                                           ExecStart the installed binary) into /etc/systemd/system
#   scripts/install.sh --keep-symbols       also install each binary's symbols and debug info
#                                           beside it (BIN/.debug/NAME.debug, found by gdb)
#   scripts/install.sh --strip PATH DIR     strip a copy of the binary PATH into DIR as an
#                                           install does (with --keep-symbols too), print its size
#
# The binaries are installed stripped (no symbol table, no debug info: less than half of
# their size); a crash's backtrace then shows addresses, which the symbols kept by
# --keep-symbols turn back into names.
#
# The flags and what each one saves are in docs/PERFORMANCE.md ("The install build"). Each
# optional one is used only when this toolchain has what it needs; when it does not, the
# script says what is left out and builds without it: the commands work the same, they only
# start slower. What the build promises is checked on the result before anything is
# installed: no libstdc++.so loaded (when libstdc++ is linked in) and no runpath.
set -euo pipefail

usage() { sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; }

dry_run=0
service=0
binary=""
print_flags=0
scratch=""
keep_symbols=0
strip_only=()
while (($#)); do
  case $1 in
    --dry-run) dry_run=1 ;;
    --service) service=1 ;;
    --keep-symbols) keep_symbols=1 ;;
    --strip)
      (($# >= 3)) || { echo "error: --strip needs a binary and a directory" >&2; exit 64; }
      strip_only=("$2" "$3"); shift 2 ;;
    --binary)
      (($# >= 2)) || { echo "error: --binary needs a path" >&2; exit 64; }
      binary=$2; shift ;;
    --binary=*) binary=${1#--binary=} ;;
    --print-flags)
      (($# >= 2)) || { echo "error: --print-flags needs the build's scratch directory" >&2; exit 64; }
      print_flags=1; scratch=$2; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "error: unknown argument '$1'" >&2; usage >&2; exit 64 ;;
  esac
  shift
done
[[ -z $binary || $dry_run == 1 ]] || { echo "error: --binary is for --dry-run (a real run checks what it built)" >&2; exit 64; }

root=$(cd "$(dirname "$0")/.." && pwd)
prefix=${PREFIX:-"$HOME/.local"}
bin_dir="$prefix/bin"
scratch=${scratch:-"$root/.build-install"}
unit_dir=${SYSTEMD_UNIT_DIR:-/etc/systemd/system}
if ((service)); then
  # The unit runs as a user of its own with home directories hidden (ProtectHome=yes).
  case $bin_dir in
    "$HOME"/*|/home/*|/root/*) echo "error: the service cannot run a binary under $prefix (a home directory, hidden from it): use PREFIX=/usr/local" >&2; exit 64 ;;
  esac
  # The path goes into ExecStart= (split at spaces) through sed (| & \ special): refused, not mangled.
  [[ $bin_dir == /* && $bin_dir != *[[:space:]\|\&\\\$%]* ]] || { echo "error: PREFIX for --service must be an absolute path without spaces or any of | & \\ \$ %, got '$prefix'" >&2; exit 64; }
fi
unit_install=(sed "s|/usr/local/bin/archive-server|$bin_dir/archive-server|g" "$root/deploy/archive-server.service")

note() { echo "install: $*" >&2; }
command -v swift > /dev/null || { echo "error: no swift on PATH (https://www.swift.org/install/linux/)" >&2; exit 1; }

# Always: the Swift runtime and Foundation linked in, no exported symbol table, no
# $ORIGIN runpath.
flags=(-c release --static-swift-stdlib --disable-local-rpath -Xlinker --no-export-dynamic)

# Packed relative relocations need lld (the toolchain ships it as ld.lld beside swift).
swift_dir=$(dirname "$(readlink -f "$(command -v swift)")")
if [[ -x $swift_dir/ld.lld ]] || command -v ld.lld > /dev/null; then
  flags+=(-Xswiftc -use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs)
else
  note "no ld.lld: building without packed relocations (each process keeps about 3.5 MB more)"
fi

# libstdc++ linked in rather than loaded: a directory holding only the archive, searched first.
static_cxx=0
libstdcxx=$(clang -print-file-name=libstdc++.a 2> /dev/null || true)
if [[ $libstdcxx == /* && -f $libstdcxx ]]; then
  static_cxx=1
  flags+=(-Xswiftc -L -Xswiftc "$scratch/static-libstdc++")
else
  note "no libstdc++.a (Debian: apt-get install libstdc++-12-dev): libstdc++.so is loaded at every start"
fi

# Generic metadata reached by direct calls: a frontend flag, so asked of this compiler first.
metadata_flag=-disable-concrete-type-metadata-mangled-name-accessors
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
echo 'let x = [1]' > "$probe/probe.swift"
if swiftc -typecheck -Xfrontend "$metadata_flag" "$probe/probe.swift" 2> /dev/null; then
  flags+=(-Xswiftc -Xfrontend -Xswiftc "$metadata_flag")
else
  note "this compiler has no $metadata_flag: building without it (about 1 ms more per start)"
fi

build=(swift build "${flags[@]}" --scratch-path "$scratch")

# The promises, checked on a built binary; prints each problem, fails on any broken one.
check() {
  local file=$1 failed=0 dynamic
  [[ -f $file ]] || { echo "error: no binary at $file" >&2; return 1; }
  command -v readelf > /dev/null || { echo "error: no readelf to check $file (Debian: apt-get install binutils)" >&2; return 1; }
  dynamic=$(readelf --dynamic "$file" 2> /dev/null) || { echo "error: $file is not an ELF binary" >&2; return 1; }
  if ((static_cxx)) && grep -q 'libstdc++' <<< "$dynamic"; then
    echo "error: $file loads libstdc++.so: the build did not link libstdc++.a" >&2; failed=1
  fi
  if grep -Eq 'RUNPATH|RPATH' <<< "$dynamic"; then
    echo "error: $file has a runpath: the build did not take --disable-local-rpath" >&2; failed=1
  fi
  return $failed
}

# Copies the binary $1 into the directory $2 without its symbol table and debug info
# (with --keep-symbols, those go to $2/.debug/NAME.debug, which the copy names by
# .gnu_debuglink, so gdb and perf find them); prints "NAME SIZE".
strip_into() {
  local file=$1 dir=$2 name
  name=$(basename "$file")
  command -v objcopy > /dev/null || { echo "error: no objcopy to strip $file (Debian: apt-get install binutils)" >&2; return 1; }
  mkdir -p "$dir"
  if ((keep_symbols)); then
    mkdir -p "$dir/.debug"
    objcopy --only-keep-debug "$file" "$dir/.debug/$name.debug"
    chmod 644 "$dir/.debug/$name.debug"
    objcopy --strip-all --add-gnu-debuglink="$dir/.debug/$name.debug" "$file" "$dir/$name.partial"
  else
    objcopy --strip-all "$file" "$dir/$name.partial"
  fi
  chmod 755 "$dir/$name.partial"
  mv "$dir/$name.partial" "$dir/$name"
  echo "$name $(size_of "$dir/$name")"
}

# A file's size in MB, one decimal.
size_of() { awk -v bytes="$(stat -c %s "$1")" 'BEGIN { printf "%.1f MB", bytes / 1000000 }'; }

if ((${#strip_only[@]})); then
  [[ -f ${strip_only[0]} ]] || { echo "error: no binary at ${strip_only[0]}" >&2; exit 1; }
  strip_into "${strip_only[0]}" "${strip_only[1]}"
  exit
fi

products=(archive archive-tui archive-server)

if ((print_flags)); then
  if ((static_cxx)); then mkdir -p "$scratch/static-libstdc++" && ln -sf "$libstdcxx" "$scratch/static-libstdc++/"; fi
  printf '%s\n' "${flags[@]}"
  exit 0
fi

if ((dry_run)); then
  ((static_cxx)) && echo "mkdir -p '$scratch/static-libstdc++' && ln -sf '$libstdcxx' '$scratch/static-libstdc++/'"
  for product in "${products[@]}"; do printf '%q ' "${build[@]}" --product "$product"; echo; done
  for product in "${products[@]}"; do
    if ((keep_symbols)); then
      echo "objcopy --only-keep-debug '$scratch/release/$product' '$scratch/stripped/.debug/$product.debug'"
      echo "objcopy --strip-all --add-gnu-debuglink='$scratch/stripped/.debug/$product.debug' '$scratch/release/$product' '$scratch/stripped/$product'"
    else
      echo "objcopy --strip-all '$scratch/release/$product' '$scratch/stripped/$product'"
    fi
  done
  echo "install -D -m 755 -t '$bin_dir'$(printf " '$scratch/stripped/%s'" "${products[@]}")"
  ((keep_symbols)) && echo "install -D -m 644 -t '$bin_dir/.debug'$(printf " '$scratch/stripped/.debug/%s.debug'" "${products[@]}")"
  ((service)) && echo "$(printf '%q ' "${unit_install[@]}")> '$unit_dir/archive-server.service'"
  [[ -n $binary ]] || exit 0
  check "$binary" && echo "checks passed: $binary"
  exit
fi

if ((static_cxx)); then
  mkdir -p "$scratch/static-libstdc++"
  ln -sf "$libstdcxx" "$scratch/static-libstdc++/"
fi
for product in "${products[@]}"; do (cd "$root" && "${build[@]}" --product "$product"); done
built=$(cd "$root" && swift build "${flags[@]}" --scratch-path "$scratch" --show-bin-path)
for product in "${products[@]}"; do check "$built/$product"; done
stripped="$scratch/stripped"
rm -rf "$stripped"
sizes=()
for product in "${products[@]}"; do sizes+=("$(strip_into "$built/$product" "$stripped")"); done
install -D -m 755 -t "$bin_dir" "${products[@]/#/$stripped/}"
if ((keep_symbols)); then
  products_debug=("${products[@]/%/.debug}")
  install -D -m 644 -t "$bin_dir/.debug" "${products_debug[@]/#/$stripped/.debug/}"
fi
echo "installed in $bin_dir: $(IFS=,; echo "${sizes[*]}" | sed 's/,/, /g')"
if ((service)); then
  mkdir -p "$unit_dir"
  "${unit_install[@]}" > "$unit_dir/archive-server.service.partial"
  mv "$unit_dir/archive-server.service.partial" "$unit_dir/archive-server.service"
  echo "installed $unit_dir/archive-server.service: systemctl daemon-reload && systemctl enable --now archive-server"
fi
case ":$PATH:" in
  *":$bin_dir:"*) ;;
  *) note "$bin_dir is not on PATH: add it (e.g. export PATH=\"$bin_dir:\$PATH\")" ;;
esac
