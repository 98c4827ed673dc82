#!/usr/bin/env python3
"""Draw the history of the modexp instruction counts and timings as one self-contained HTML page.

    python3 tools/bench_report.py [-o build/bench-report.html]

Sources, oldest first:
* the committed baselines: every commit that changed tools/arm-baseline.json (git log), the
  per-commit record of our counts, with the peers (GMP, OpenSSL) of the same run;
* the count runs tools/armcount.py saved under .benchmarks/counts/ (one JSON per run);
* pytest-benchmark's saved runs under .benchmarks/<machine>/ (bench/conftest.py turns
  autosave on for `pytest bench`), median seconds per benchmark.
One chart per count (ours as a line, each peer of the same target as a dashed reference line
at its latest value) and one per benchmark group (a line per benchmark). Inline SVG, no
scripts, no third-party packages.
"""

from __future__ import annotations

import argparse
import html
import json
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BASELINE = "tools/arm-baseline.json"
COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"]
Series = dict[str, list[tuple[str, float]]]  # name -> [(label of the point, value)]


def baseline_history() -> list[tuple[str, dict]]:
    """(short commit, baseline document) for every commit that changed the baseline."""
    log = subprocess.run(
        ["git", "-C", str(ROOT), "log", "--reverse", "--format=%h", "--", BASELINE],
        capture_output=True,
        text=True,
    ).stdout.split()
    out = []
    for rev in log:
        shown = subprocess.run(
            ["git", "-C", str(ROOT), "show", f"{rev}:{BASELINE}"], capture_output=True, text=True
        )
        if shown.returncode == 0:
            out.append((rev, json.loads(shown.stdout)))
    return out


def count_series() -> tuple[Series, dict[str, float]]:
    """Our counts over baselines and saved runs; the peers' latest counts."""
    ours: Series = {}
    peers: dict[str, float] = {}
    points = [
        (f"baseline {rev}", doc["counts"], doc.get("peers", {})) for rev, doc in baseline_history()
    ]
    for path in sorted((ROOT / ".benchmarks" / "counts").glob("*.json")):
        doc = json.loads(path.read_text())
        counts = doc["counts"]
        mine = {k: v for k, v in counts.items() if " sra-" in k or k.endswith(" jacobi-sra")}
        points.append(
            (f"run {path.stem}", mine, {k: v for k, v in counts.items() if k not in mine})
        )
    for label, mine, theirs in points:
        for key, value in mine.items():
            ours.setdefault(key, []).append((label, float(value)))
        peers.update({k: float(v) for k, v in theirs.items()})
    return ours, peers


def timing_series() -> dict[str, Series]:
    """group -> benchmark name -> [(run, median seconds)] from pytest-benchmark's saved runs."""
    groups: dict[str, Series] = {}
    for path in sorted((ROOT / ".benchmarks").glob("*/*.json")):
        if path.parent.name == "counts":
            continue
        doc = json.loads(path.read_text())
        run = (doc.get("commit_info", {}).get("id") or "")[:8] or path.stem
        for b in doc.get("benchmarks", []):
            groups.setdefault(b.get("group") or "ungrouped", {}).setdefault(b["name"], []).append(
                (run, b["stats"]["median"])
            )
    return groups


def svg_chart(title: str, series: Series, refs: dict[str, float], unit: str) -> str:
    """A line chart: one polyline per series over the point index, dashed reference lines."""
    w, h, left, right, top, bottom = 760, 300, 70, 230, 30, 40
    values = [v for pts in series.values() for _, v in pts] + list(refs.values())
    if not values:
        return ""
    lo, hi = 0.0, max(values) * 1.08
    n = max(len(pts) for pts in series.values()) if series else 1

    def x(i: int) -> float:
        return left + (w - left - right) * (i / max(n - 1, 1))

    def y(v: float) -> float:
        return top + (h - top - bottom) * (1 - (v - lo) / (hi - lo or 1))

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-size="11">',
        f'<text x="{left}" y="18" font-size="13" font-weight="bold">{html.escape(title)}</text>',
        f'<line x1="{left}" y1="{y(0)}" x2="{w - right}" y2="{y(0)}" stroke="#888"/>',
    ]
    for k in range(5):
        v = hi * k / 4
        parts.append(f'<text x="{left - 6}" y="{y(v) + 4}" text-anchor="end">{v:.3g}{unit}</text>')
        parts.append(f'<line x1="{left}" y1="{y(v)}" x2="{w - right}" y2="{y(v)}" stroke="#eee"/>')
    legend = 0
    for c, (name, pts) in enumerate(sorted(series.items())):
        color = COLORS[c % len(COLORS)]
        xy = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, (_, v) in enumerate(pts))
        parts.append(f'<polyline fill="none" stroke="{color}" stroke-width="2" points="{xy}"/>')
        for i, (label, v) in enumerate(pts):
            parts.append(
                f'<circle cx="{x(i):.1f}" cy="{y(v):.1f}" r="3" fill="{color}">'
                f"<title>{html.escape(label)}: {v:.4g}{unit}</title></circle>"
            )
        parts.append(
            f'<text x="{w - right + 8}" y="{top + 14 * legend}" fill="{color}">'
            f"{html.escape(name)}</text>"
        )
        legend += 1
    for c, (name, v) in enumerate(sorted(refs.items())):
        color = COLORS[(c + len(series)) % len(COLORS)]
        parts.append(
            f'<line x1="{left}" y1="{y(v):.1f}" x2="{w - right}" y2="{y(v):.1f}" '
            f'stroke="{color}" stroke-dasharray="6 4"/>'
        )
        parts.append(
            f'<text x="{w - right + 8}" y="{top + 14 * legend}" fill="{color}">'
            f"- - {html.escape(name)} {v:.4g}{unit}</text>"
        )
        legend += 1
    parts.append("</svg>")
    return "\n".join(parts)


def report() -> str:
    ours, peers = count_series()
    charts = []
    for key in sorted(ours):
        target = key.split()[0]
        jac = "jacobi" in key
        refs = {
            k: v / 1e6
            for k, v in peers.items()
            if k.split()[0] == target and ("jacobi" in k) == jac
        }
        points = [(label, v / 1e6) for label, v in ours[key]]
        charts.append(svg_chart(f"{key}: instructions", {key: points}, refs, "M"))
    for group, series in sorted(timing_series().items()):
        scaled = {name: [(r, v * 1e3) for r, v in pts] for name, pts in series.items()}
        charts.append(svg_chart(f"{group}: median time", scaled, {}, "ms"))
    body = "\n".join(f"<div>{c}</div>" for c in charts if c) or "<p>No history yet.</p>"
    return (
        "<!DOCTYPE html><html><head><meta charset='utf-8'><title>blu21 modexp history</title>"
        "<style>body{font-family:sans-serif}</style></head><body>"
        "<h1>blu21 modexp: instruction counts and timings</h1>"
        "<p>Counts: committed baselines (per commit) then saved runs; dashed: the peers "
        "(Debian's GMP and OpenSSL, same target). Timings: pytest-benchmark medians per saved "
        f"run.</p>{body}</body></html>\n"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-o", "--output", type=Path, default=ROOT / "build" / "bench-report.html")
    args = ap.parse_args()
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(report())
    print(args.output)


if __name__ == "__main__":
    main()
