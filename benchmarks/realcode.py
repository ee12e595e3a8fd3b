"""Lint pinned public PyTorch training repositories and score a hand audit of the findings.

Usage:
    python benchmarks/realcode.py                       # export, lint, write findings + counts
    python benchmarks/realcode.py --labels benchmarks/realcode_labels.json
    python benchmarks/realcode.py --src ~/checkouts     # repos checked out by hand
    python benchmarks/realcode.py --list                # the pinned repositories

The repositories are pinned below (owner/name, commit, the folders taken). This script
does not download anything: it exports each pinned commit from a bare git mirror into
CACHE/<owner>+<name>/ (default ~/.cache/devicelint-realcode; --cache DIR or
DEVICELINT_REALCODE=DIR). The mirrors are looked for in --mirror DIR (default
/work/.mirror, where this project's `fetch` tool puts `github:<owner>/<name>` as
<owner>+<name>/repo). Elsewhere, `git clone` the repositories and either point --mirror
at a folder of <owner>+<name>/ clones or pass --src DIR, a folder of checked-out trees
(<owner>+<name>/ or <name>/) that is linted as it is.

devicelint runs as `devicelint --select ALL --output-format json --no-cache --exit-zero
--jobs N` (default 2) from the cache folder, so a finding's path starts with its repo
folder. The findings go to CACHE/findings.json (--out FILE) and a count per rule is printed.

--labels FILE scores a hand audit: a JSON list of {"repo", "path", "line", "code",
"label": true|false, "reason"} (a finding is keyed by repo, path inside it, line and
code). It prints, per rule, the findings now reported, how many are labelled, true and
false, and precision = true / labelled, plus the labels whose finding is gone.
"""

from __future__ import annotations

import argparse
import collections
import io
import json
import os
import random
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

# (repo, commit, folders inside it to take; () = the whole tree). Chosen for classic
# training/eval scripts: classification, GANs, VAEs, seq2seq, transformers, RL, detection,
# segmentation, diffusion, graphs, HF/accelerate/Lightning/ignite style.
REPOS: list[tuple[str, str, tuple[str, ...]]] = [
    ("pytorch/examples", "77f55b912142e11fcfdf5b530231fb9c52f181e8", ()),
    ("yunjey/pytorch-tutorial", "0500d3df5a2a8080ccfccbc00aca0eacc21818db", ()),
    ("eriklindernoren/PyTorch-GAN", "36d3c77e5ff20ebe0aeefd322326a134a279b93e", ()),
    ("eriklindernoren/PyTorch-YOLOv3", "1d621c8489e22c76ceb93bb2397ac6c8dfb5ceb7", ()),
    ("kuangliu/pytorch-cifar", "49b7aa97b0c12fe0d4054e670403a16b6b834ddd", ()),
    ("AntixK/PyTorch-VAE", "a6896b944c918dd7030e7d795a8c13e5c6345ec7", ()),
    ("1Konny/Beta-VAE", "977a1ece88e190dd8a556b4e2efb665f759d0772", ()),
    ("vwxyzjn/cleanrl", "fe8d8a03c41a7ef5b523e2e354bd01c363e786bb", ("cleanrl",)),
    ("seungeunrho/minimalRL", "c8efed8481e3cd40e9739cfde220a55522555b57", ()),
    ("higgsfield/RL-Adventure", "0f82b6922e8a1a8515fc4c84c28702e7caa226f1", ()),
    ("sfujim/TD3", "34770ccdcb51df6f6c7d85c1ba7e40d71b940d16", ()),
    ("pranz24/pytorch-soft-actor-critic", "c1805660b3961694be54079a355155a5cad492f5", ()),
    ("ikostrikov/pytorch-a2c-ppo-acktr-gail", "41332b78dfb50321c29bade65f9d244387f68a60", ()),
    ("karpathy/nanoGPT", "3adf61e154c3fe3fca428ad6bc3818b27a3b8291", ()),
    ("karpathy/minGPT", "37baab71b9abea1b76ab957409a1cc2fbfba8a26", ()),
    ("jadore801120/attention-is-all-you-need-pytorch", "132907dd272e2cc92e3c10e6c4e783a87ff8893d", ()),
    ("spro/practical-pytorch", "c520c52e68e945d88fff563dba1c028b6ec0197b", ()),
    ("Shawn1993/cnn-text-classification-pytorch", "93415f08168a1ae60635320569f6eca0ae3a40bb", ()),
    ("sgrvinod/a-PyTorch-Tutorial-to-Image-Captioning", "cc9c7e2f4017938d414178d3781fed8dbe442852", ()),
    ("clovaai/deep-text-recognition-benchmark", "e2117f2fb882b3c6085030500a260c113be27a63", ()),
    ("amdegroot/ssd.pytorch", "5b0b77faa955c1917b0c710d770739ba8fbff9b7", ()),
    ("facebookresearch/detr", "29901c51d7fe8712168b8d0d64351170bc0f83e0", ()),
    ("ultralytics/yolov5", "5081342f04fb287fc2e5f2b5a4e06752b7937b1c", ()),
    ("milesial/Pytorch-UNet", "21d7850f2af30a9695bbeea75f3136aa538cfc4a", ()),
    ("meetps/pytorch-semseg", "801fb200547caa5b0d91b8dde56b837da029f746", ()),
    ("bearpaw/pytorch-classification", "24f1c456f48c78133088c4eefd182ca9e6199b03", ()),
    ("facebookresearch/moco", "89d61767d273770bfc539a1c2e818b56341179d2", ()),
    ("facebookresearch/dino", "7c446df5b9f45747937fb0d72314eb9f7b66930a", ()),
    ("facebookresearch/mae", "efb2a8062c206524e35e47d04501ed4f544c0ae8", ()),
    ("facebookresearch/DiT", "ed81ce2229091fd4ecc9a223645f95cf379d582b", ()),
    ("openai/improved-diffusion", "1bc7bbbdc414d83d4abf2ad8cc1446dc36c4e4d5", ()),
    ("lucidrains/denoising-diffusion-pytorch", "faed4db28e724735323fa91c70aa9b28a6e1cbac", ()),
    ("lucidrains/vit-pytorch", "69d24fe9e3024c0d4b02761123b8583a24ebed1e", ()),
    ("tkipf/pygcn", "1600b5b748b3976413d1e307540ccc62605b4d6d", ()),
    ("Diego999/pyGAT", "3664f2dc90cbf971564c0bf186dc794f12446d0c", ()),
    ("pyg-team/pytorch_geometric", "5c6461b2305ad068a6d61165b3c55852a11aaa41", ("examples",)),
    ("Lightning-AI/tutorials", "15817658a2d63afa338b9e1cd8454fb98d746fac", ()),
    ("pytorch/ignite", "de08e799cfb55a6cf4aa778575d6bad725385453", ("examples",)),
    ("huggingface/accelerate", "16cb6eb80dd9aa8b4df1a63ef57863e455d53b83", ("examples",)),
    ("huggingface/peft", "5d602fdbff04c33c1c4de55cda9d4ae1d7cb7e40", ("examples",)),
    ("huggingface/trl", "f2cd57710ae345ea6428ae95363267fcf38a3dc8", ("examples",)),
]

DEFAULT_CACHE = Path(os.environ.get("DEVICELINT_REALCODE", "~/.cache/devicelint-realcode")).expanduser()
DEFAULT_MIRROR = Path("/work/.mirror")
SOURCE_EXT = (".py", ".ipynb")


def folder(repo: str) -> str:
    return repo.replace("/", "+")


def git_dir(mirror: Path, repo: str) -> Path | None:
    """The git directory of REPO's mirror: a bare repo, or a clone's .git."""
    base = mirror / folder(repo)
    for cand in (base / "repo", base / "repo" / ".git", base / ".git", base):
        if (cand / "HEAD").is_file() and (cand / "objects").is_dir():
            return cand
    return None


def export(cache: Path, mirror: Path, repo: str, commit: str, parts: tuple[str, ...]) -> Path | str:
    """Return CACHE/<folder>, exporting the pinned commit's tree from the mirror when missing,
    or why it cannot."""
    dest = cache / folder(repo)
    stamp = dest / ".devicelint-realcode"
    want = f"{commit} {' '.join(parts)}".strip()
    if stamp.is_file() and stamp.read_text().strip() == want:
        return dest
    gd = git_dir(mirror, repo)
    if gd is None:
        return (f"no mirror in {mirror} (bring it with the fetch tool github:{repo}, "
                f"or git clone it there as {folder(repo)})")
    # only the sources: the linter reads nothing else, and large data files may be
    # absent from a snapshot (git archive of the whole tree would then fail)
    ls = subprocess.run(["git", f"--git-dir={gd}", "ls-tree", "-r", "-z", "--name-only", commit, "--", *parts],
                        capture_output=True)
    if ls.returncode != 0:
        return f"git ls-tree {commit[:12]} failed: {ls.stderr.decode(errors='replace').strip()}"
    paths = [n for n in ls.stdout.decode().split("\0") if n.endswith(SOURCE_EXT)]
    if not paths:
        return f"no source files at {commit[:12]} in {', '.join(parts) or 'the tree'}"
    p = subprocess.run(["git", f"--git-dir={gd}", "archive", "--format=tar", commit, "--", *paths],
                       capture_output=True)
    if p.returncode != 0:
        return f"git archive {commit[:12]} failed: {p.stderr.decode(errors='replace').strip()}"
    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir(parents=True)
    with tarfile.open(fileobj=io.BytesIO(p.stdout)) as tar:
        members = [m for m in tar.getmembers() if m.isfile()]
        tar.extractall(dest, members=members, filter="data") if hasattr(tarfile, "data_filter") \
            else tar.extractall(dest, members=members)
    stamp.write_text(want + "\n")
    return dest


def trees(args: argparse.Namespace) -> list[Path]:
    """The folders to lint, one per repository, all directly inside one root folder."""
    if args.src:
        src = args.src.expanduser().resolve()
        out = []
        for repo, _, _ in REPOS:
            for cand in (src / folder(repo), src / repo.split("/")[1]):
                if cand.is_dir():
                    out.append(cand)
                    break
            else:
                print(f"  {repo}: not in {src}, skipped", file=sys.stderr)
        return out
    cache = args.cache.expanduser().resolve()
    cache.mkdir(parents=True, exist_ok=True)
    out = []
    for repo, commit, parts in REPOS:
        d = export(cache, args.mirror, repo, commit, parts)
        if isinstance(d, str):
            print(f"  {repo}: {d}; skipped", file=sys.stderr)
        else:
            out.append(d)
    return out


def devicelint_cmd() -> list[str]:
    exe = Path(sys.executable).with_name("devicelint")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "devicelint"]


def lint(dirs: list[Path], jobs: int) -> list[dict]:
    """Findings of every rule on DIRS, each keyed by repo folder and path inside it."""
    if not dirs:
        return []
    root = dirs[0].parent
    cmd = devicelint_cmd() + ["--select", "ALL", "--output-format", "json", "--no-cache",
                              "--exit-zero", "--jobs", str(jobs), *(d.name for d in dirs)]
    p = subprocess.run(cmd, cwd=root, capture_output=True, text=True)
    if p.returncode not in (0, 1) or "Traceback (most recent call last)" in p.stderr:
        raise SystemExit(f"devicelint failed (exit {p.returncode}):\n{p.stderr[-3000:]}")
    data = json.loads(p.stdout or "[]")
    findings = []
    for f in data:
        repo, _, path = f["path"].replace(os.sep, "/").partition("/")
        findings.append({**f, "repo": repo.replace("+", "/", 1), "path": path})
    return findings


def key(f: dict) -> tuple:
    return (f["repo"], f["path"], f.get("cell"), int(f["line"]), f["code"])


def score(findings: list[dict], labels: list[dict]) -> dict[str, dict[str, int]]:
    """Per rule: found, labelled, true, false (labels on findings now reported) and gone_true,
    gone_false (labels whose finding is no longer reported: a fixed miss or a fixed FP)."""
    lab = {key(x): bool(x["label"]) for x in labels}
    found = {key(f) for f in findings}
    rows: dict[str, dict[str, int]] = collections.defaultdict(collections.Counter)
    for k in found:
        r = rows[k[-1]]
        r["found"] += 1
        if k in lab:
            r["labelled"] += 1
            r["true" if lab[k] else "false"] += 1
    for k, v in lab.items():
        if k not in found:
            rows[k[-1]]["gone_true" if v else "gone_false"] += 1
    return rows


def print_score(rows: dict[str, dict[str, int]]) -> None:
    print(f"{'rule':6} {'found':>6} {'labelled':>8} {'true':>5} {'false':>5} {'precision':>9}"
          f" {'gone(T)':>7} {'gone(F)':>7}")
    tot: collections.Counter = collections.Counter()
    for code in sorted(rows) + ["all"]:
        r = tot if code == "all" else rows[code]
        if code != "all":
            tot.update(r)
        prec = f"{r['true'] / r['labelled']:.2f}" if r["labelled"] else "-"
        print(f"{code:6} {r['found']:6d} {r['labelled']:8d} {r['true']:5d} {r['false']:5d} {prec:>9}"
              f" {r['gone_true']:7d} {r['gone_false']:7d}")


def audit_sample(findings: list[dict], code: str, limit: int, seed: int) -> list[dict]:
    """All findings of CODE when there are at most LIMIT, else a seeded random LIMIT of them."""
    mine = sorted((f for f in findings if f["code"] == code), key=key)
    if len(mine) > limit:
        mine = sorted(random.Random(f"{seed}-{code}").sample(mine, limit), key=key)
    return mine


def show(root: Path, f: dict, around: int = 4) -> str:
    head = f"### {f['code']} {f['repo']} {f['path']}:{f['line']}  {f['message']}"
    try:
        src = (root / folder(f["repo"]) / f["path"]).read_text(errors="replace").splitlines()
    except OSError as e:
        return f"{head}\n    (cannot read: {e})"
    lo, hi = max(f["line"] - around, 1), min(f["line"] + around, len(src))
    return "\n".join([head] + [f"{'>' if n == f['line'] else ' '}{n:5d} {src[n - 1]}" for n in range(lo, hi + 1)])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cache", type=Path, default=DEFAULT_CACHE, help="export folder (outside the repo)")
    ap.add_argument("--mirror", type=Path, default=DEFAULT_MIRROR, help="folder of <owner>+<name> git mirrors")
    ap.add_argument("--src", type=Path, help="folder of checked-out repositories, linted as they are")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", type=Path, help="findings file (default CACHE/findings.json)")
    ap.add_argument("--labels", type=Path, help="hand-audit label file to score")
    ap.add_argument("--list", action="store_true", help="print the pinned repositories and stop")
    ap.add_argument("--show", metavar="CODE", help="print the audit sample of CODE with source context")
    ap.add_argument("--limit", type=int, default=30, help="audit sample size per rule (--show)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--reuse", action="store_true", help="read the findings file of an earlier run, do not lint")
    args = ap.parse_args()
    if args.list:
        for repo, commit, parts in REPOS:
            print(f"{repo}\t{commit}\t{','.join(parts) or '.'}")
        return

    dirs = trees(args)
    nfiles = sum(1 for d in dirs for p in d.rglob("*.py") if p.is_file())
    print(f"{len(dirs)} repositories, {nfiles} .py files")
    out = args.out or args.cache.expanduser().resolve() / "findings.json"
    if args.reuse:
        findings = json.loads(out.read_text())
    else:
        findings = lint(dirs, args.jobs)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(findings, indent=1))
    counts = collections.Counter(f["code"] for f in findings)
    print(f"{len(findings)} findings in {len({(f['repo'], f['path']) for f in findings})} files -> {out}")
    for code, n in sorted(counts.items()):
        print(f"  {code}  {n:5d}  {next(f['name'] for f in findings if f['code'] == code)}")
    if args.show:
        root = dirs[0].parent if dirs else Path(".")
        for f in audit_sample(findings, args.show, args.limit, args.seed):
            print("\n" + show(root, f))
    if args.labels:
        print()
        print_score(score(findings, json.loads(args.labels.read_text())))


if __name__ == "__main__":
    main()
