"""Build igsolve (Piotr Beling's Cram solver, beling/impartial-games) from copies of its public
source, for bench_pruned.py --igsolve: the crates Debian packages (``librust-*-dev``, a
directory registry) and, for the ones it lacks, their public sources at the versions igsolve
asks for, wired in by a ``[patch]`` section of cargo's configuration. Nothing is vendored
into this repository, and no crates registry is reached.

Usage: python tests/benchmarks/build_igsolve.py --sources DIR [--work DIR]

DIR holds git clones (or bare mirrors) named as below. The script exports each at its pinned
commit into the work folder, writes a cargo home whose config replaces crates.io by Debian's
registry and patches in the exports, and runs ``cargo build --release -p igsolve`` offline.
It prints the binary's path, or the crate cargo could not find (install its Debian package,
``apt-get install librust-NAME-dev``, or add its source below) and exits 1.

Where it stands (2026-12-07, Debian 12, cargo 1.95): igsolve's newest commit (07a34e6) does not
resolve: its ph 0.10 enables sux 0.6 by default, and sux asks for 25 crates of which Debian 12
lacks ten (mem_dbg, epserde, lender, ...) and has eleven too old. So the script builds commit
c721c3f (2024-06-22, ph 0.8; igs moved to ph 0.10 on 2025-09-14, and between the two its Cram
code gained only comments; igsolve's command line took ``cram -r ROWS -c COLS`` then) against
bsuccinct-rs 876df3f (ph 0.8.3, bitm 0.4.1, csf 0.1.14, binout 0.2.1). Debian gives clap
4.0.32, arrayvec, lru, maplit, fnv, rayon 1.6.1 and nauty-Traces-sys's build tools; the sources
below cover the rest. One job, about a minute of CPU.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

#: igsolve's workspace: (clone folder under --sources, commit); see the docstring for why not HEAD.
WORKSPACE = ("impartial-games", "c721c3f")
#: bsuccinct-rs at 2024-02-25: ph 0.8.3, bitm 0.4.1, csf 0.1.14, binout 0.2.1, as igs asks.
BSUCCINCT = "876df3f"
#: crate (as cargo names it) -> (clone folder under --sources, commit or tag, path inside)
SOURCES = {
    **{
        crate: ("bsuccinct-rs", BSUCCINCT, crate)
        for crate in ("ph", "bitm", "csf", "binout", "dyn_size_of", "minimum_redundancy", "fsum")
    },
    "wyhash": ("wyhash-rs", "v0.5.0", ""),
    "co_sort": ("co_sort", "HEAD", ""),
    "cpu-time": ("cpu-time", "HEAD", ""),
    "superslice": ("superslice-rs", "HEAD", ""),
    "nauty-Traces-sys": ("nauty-Traces-sys", "3d990c3642030dcac98c21b6dff3620af1dabf94", ""),
}
DEBIAN_REGISTRY = "/usr/share/cargo/registry"


def export(sources: Path, work: Path, clone: str, commit: str) -> Path:
    """A clone at a commit, once, under `work`."""
    target = work / f"{clone}@{commit}"
    if not target.exists():
        target.mkdir(parents=True)
        archive = subprocess.run(
            ["git", "-C", str(sources / clone), "archive", commit], check=True, capture_output=True
        )
        subprocess.run(["tar", "-x", "-C", str(target)], input=archive.stdout, check=True)
    return target


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sources", required=True, type=Path)
    parser.add_argument("--work", type=Path, default=Path("/tmp/igsolve-build"))
    args = parser.parse_args()
    sources, work = args.sources.resolve(), args.work.resolve()
    workspace = export(sources, work, *WORKSPACE)
    patches = "\n".join(
        f'{crate} = {{ path = "{export(sources, work, clone, commit) / inside}" }}'
        for crate, (clone, commit, inside) in SOURCES.items()
    )
    home = work / "cargo-home"
    home.mkdir(exist_ok=True)
    (home / "config.toml").write_text(
        '[source.crates-io]\nreplace-with = "debian"\n\n'
        f'[source.debian]\ndirectory = "{DEBIAN_REGISTRY}"\n\n'
        "[net]\noffline = true\n\n"
        f"[patch.crates-io]\n{patches}\n"
    )
    build = subprocess.run(
        ["cargo", "build", "--release", "-j", "1", "-p", "igsolve"],
        cwd=workspace,
        env={**os.environ, "CARGO_HOME": str(home)},
        capture_output=True,
        text=True,
    )
    if build.returncode != 0:
        sys.exit("\n".join(build.stderr.splitlines()[-6:]))
    print(workspace / "target" / "release" / "igsolve")


if __name__ == "__main__":
    main()
