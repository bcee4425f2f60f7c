# Sourced by the checks against official Python packages (tests/*/run.sh).
# python_venv DIR PACKAGE VERSION: a virtual environment at DIR holding PACKAGE==VERSION from PyPI,
# made the first time and quiet when it is already there.
python_venv() {
    local venv="$1" package="$2" version="$3"
    if [ ! -x "$venv/bin/python" ]; then
        python3 -m venv "$venv"
    fi
    if ! "$venv/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('$package') != '$version')" 2>/dev/null; then
        "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "$package==$version"
    fi
}
