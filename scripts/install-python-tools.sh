#!/usr/bin/env bash
# Installs the tests' tools from PyPI, the versions pinned below, each into a virtual
# environment of its own under the user's cache, once:
#   - schemathesis and openapi-spec-validator (SchemathesisTests), on `python3`;
#   - axe-selenium-python, which carries axe-core (BrowserTests), on Debian's /usr/bin/python3
#     with its system packages, whose python3-selenium drives Debian's chromium.
# A failed install leaves nothing half made: the next run starts again.
#
#   bash scripts/install-python-tools.sh                 # install what is missing
#   bash scripts/install-python-tools.sh --path st       # print where schemathesis's st is
#   bash scripts/install-python-tools.sh --path python-axe   # print the python that has axe
set -euo pipefail

cache="${XDG_CACHE_HOME:-$HOME/.cache}/favorite-archive"
schemathesis=4.32.5
validator=0.9.0
axe=2.1.6
st_root="$cache/schemathesis-$schemathesis-validator-$validator"
axe_root="$cache/axe-selenium-python-$axe"

if [[ ${1:-} == --path ]]; then
  case ${2:-} in
    st) echo "$st_root/bin/st" ;;
    python-axe) echo "$axe_root/bin/python" ;;
    *) echo "usage: bash scripts/install-python-tools.sh --path st|python-axe" >&2; exit 64 ;;
  esac
  exit 0
elif [[ $# -gt 0 ]]; then
  echo "usage: bash scripts/install-python-tools.sh [--path st|python-axe]" >&2
  exit 64
fi

install() {  # install ROOT CHECK PYTHON VENV-OPTIONS… -- PACKAGES…: a venv at ROOT unless CHECK passes in it
  local root=$1 check=$2 python=$3
  shift 3
  local options=()
  while [[ $1 != -- ]]; do options+=("$1"); shift; done
  shift
  if [[ -x $root/bin/python ]] && "$root/bin/python" -c "$check" 2> /dev/null; then return 0; fi
  rm -rf "$root"
  mkdir -p "$(dirname "$root")"
  trap 'rm -rf "$root"' ERR
  "$python" -m venv "${options[@]}" "$root"
  "$root/bin/pip" install --quiet --disable-pip-version-check "$@"
  trap - ERR
}

install "$st_root" "import schemathesis, openapi_spec_validator" python3 -- \
  "schemathesis==$schemathesis" "openapi-spec-validator==$validator"
install "$axe_root" "import axe_selenium_python, selenium" /usr/bin/python3 --system-site-packages -- "axe-selenium-python==$axe"
echo "$st_root/bin/st"
echo "$axe_root/bin/python"
