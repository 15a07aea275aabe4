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

Where it stood on 2026-12-07 (Debian 12, cargo 1.95): Debian gives clap 4.0.32 (with
clap_derive), arrayvec, lru, maplit, num-integer, bindgen and rayon 1.6.1; the sources below
cover bsuccinct-rs (ph 0.10.0, bitm, csf, binout, dyn_size_of, seedable_hash,
minimum_redundancy, fsum), voracious_radix_sort 1.2.0 (which needs rayon >= 1.7, hence rayon
1.8.1), wyhash 0.5.0, co_sort 0.2.0, cpu-time 1.0.0, superslice 1.0.0 and nauty-Traces-sys
0.2.0. Resolution then stops at ``mem_dbg``: ph 0.10 (every 0.10 release) enables sux 0.6 by
default (with mem_dbg 0.3; cacheline-ef 1.1 is optional but must resolve too), and sux 0.6
asks for 25 crates of which Debian 12 lacks ten (common_traits, lender, epserde, mem_dbg,
dsi-progress-logger, mmap-rs, rdst, ambassador, impl-tools, core_affinity) and has eleven too
old (clap 4.0.32 for >= 4.4.18, rand 0.8.5 for 0.9, zstd 0.12 for 0.13, bitflags 1.3 for 2.4,
env_logger 0.9 for 0.11, anyhow, bytemuck, num_cpus, tempfile, log, flate2), each with
dependencies of its own: more sources than this script pins, so igsolve is not built here yet.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

#: igsolve's workspace: (clone folder under --sources, commit)
WORKSPACE = ("impartial-games", "07a34e6")
#: crate (as cargo names it) -> (clone folder under --sources, commit or tag, path inside)
SOURCES = {
    "ph": ("bsuccinct-rs", "384bae11ac192e149a84dc110972983cfe90e504", "ph"),
    "bitm": ("bsuccinct-rs", "384bae11ac192e149a84dc110972983cfe90e504", "bitm"),
    "csf": ("bsuccinct-rs", "384bae11ac192e149a84dc110972983cfe90e504", "csf"),
    "binout": ("bsuccinct-rs", "384bae11ac192e149a84dc110972983cfe90e504", "binout"),
    "dyn_size_of": ("bsuccinct-rs", "384bae11ac192e149a84dc110972983cfe90e504", "dyn_size_of"),
    "seedable_hash": (
        "bsuccinct-rs",
        "384bae11ac192e149a84dc110972983cfe90e504",
        "seedable_hash",
    ),
    "minimum_redundancy": (
        "bsuccinct-rs",
        "384bae11ac192e149a84dc110972983cfe90e504",
        "minimum_redundancy",
    ),
    "fsum": ("bsuccinct-rs", "384bae11ac192e149a84dc110972983cfe90e504", "fsum"),
    "voracious_radix_sort": ("voracious_sort", "HEAD", ""),
    "wyhash": ("wyhash-rs", "v0.5.0", ""),
    "co_sort": ("co_sort", "HEAD", ""),
    "cpu-time": ("cpu-time", "HEAD", ""),
    "rayon": ("rayon", "v1.8.1", ""),
    "rayon-core": ("rayon", "v1.8.1", "rayon-core"),
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
        ["cargo", "build", "--release", "-p", "igsolve"],
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
