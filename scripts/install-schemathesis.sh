#!/usr/bin/env bash
# Installs schemathesis and openapi-spec-validator (PyPI), the versions pinned below, into a
# virtual environment of its own under the user's cache, once, and prints the path of its
# `st` command (openapi-spec-validator is beside it). `--path` only prints where it is
# (SchemathesisTests asks; .ci/run installs). A failed install leaves nothing half made: the
# next run starts again.
#
#   bash scripts/install-schemathesis.sh           # install if missing; print the path of st
#   bash scripts/install-schemathesis.sh --path    # print the path of st
set -euo pipefail

version=4.32.5
validator=0.9.0
root="${XDG_CACHE_HOME:-$HOME/.cache}/favorite-archive/schemathesis-$version-validator-$validator"
st="$root/bin/st"

if [[ ${1:-} == --path ]]; then
  echo "$st"
  exit 0
elif [[ $# -gt 0 ]]; then
  echo "usage: bash scripts/install-schemathesis.sh [--path]" >&2
  exit 64
fi

if [[ ! -x $st || ! -x $root/bin/openapi-spec-validator ]] || ! "$st" --version 2>/dev/null | grep -qF "$version"; then
  rm -rf "$root"
  mkdir -p "$(dirname "$root")"
  trap 'rm -rf "$root"' ERR
  python3 -m venv "$root"
  "$root/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$version" "openapi-spec-validator==$validator"
  trap - ERR
fi
echo "$st"
