"""Where the benchmark scripts find leaper: a prebuilt binary first, a build only as a last resort.

LEAPER_BIN names a directory holding `leaper` (and `leaper-worker`) or the path of `leaper`
itself; otherwise `leaper` on the PATH; otherwise `cargo build --release` in this checkout.
"""
import os
import shutil
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def leaper_binary():
    """The path of the leaper binary to run."""
    given = os.environ.get("LEAPER_BIN")
    if given:
        path = os.path.join(given, "leaper") if os.path.isdir(given) else given
        if not os.access(path, os.X_OK):
            raise SystemExit(f"LEAPER_BIN={given}: no leaper binary at {path}")
        return path
    found = shutil.which("leaper")
    if found:
        return found
    subprocess.run(["cargo", "build", "--release", "-q", "-p", "leaper-coordinator"], cwd=ROOT, check=True)
    return os.path.join(ROOT, "target", "release", "leaper")
