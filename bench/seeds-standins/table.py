#!/usr/bin/env python3
"""Set beside found: one seed's stand-ins, kura's figures and their ratios.

usage: table.py COMPARE_JSON SPEC_JSON
SPEC: {"title", "unit", "rows": [{"key", "label", "set": [per target], "field"}]}
A row's "key" is a compare row key (docs/json.md), or "latency_bound" for the
scores of latency searches. "field" picks the cell's figure: "value" (the
comparison's metric), "iops", or "mbs" (bytes_per_sec / 1e6). A set value
may be a string (printed as it is, no set ratio). An optional "fio": [per
target] adds a column: fio's figure for the same test on the same stand-in."""
import json
import sys
import textwrap

cmp = json.load(open(sys.argv[1]))
spec = json.load(open(sys.argv[2]))
names = [t.get("label") or t["name"] for t in cmp["targets"]]
base = cmp.get("baseline", 0)


def fmt(x):
    if x is None:
        return "-"
    if isinstance(x, str):
        return x
    return f"{x:,.0f}" if x >= 100 else f"{x:.3g}"


def figure(cell, field):
    if cell is None or cell.get("not_comparable"):
        return None
    if field == "mbs":
        return cell["bytes_per_sec"] / 1e6
    return cell[field]


def found(row, field):
    if row["key"] == "latency_bound":
        return [s["score_iops"] for s in cmp["latency_bound"]["scores"]], [
            ">= " if s["lower_bound"] else "" for s in cmp["latency_bound"]["scores"]]
    for r in cmp["rows"]:
        if r["key"] == row["key"]:
            return [figure(c, field) for c in r["cells"]], [""] * len(names)
    return [None] * len(names), [""] * len(names)


has_fio = any("fio" in row for row in spec["rows"])
print(spec["title"])
print(f"{'test':<16}{'target':<15}{'set':>8}" + (f"{'fio':>8}" if has_fio else "")
      + f"{'kura':>9}{'set x':>7}{'kura x':>8}{'off':>6}")
rule = "-" * (69 + 8 * has_fio)
print(rule)
for row in spec["rows"]:
    kura, marks = found(row, row.get("field", "value"))
    sets = row["set"]
    fio = row.get("fio") or [None] * len(names)
    for i, name in enumerate(names):
        s, k = sets[i], kura[i]
        sb, kb = sets[base], kura[base]
        sr = s / sb if isinstance(s, (int, float)) and isinstance(sb, (int, float)) else None
        kr = k / kb if k is not None and kb else None
        off = f"{(kr / sr - 1) * 100:+.0f}%" if sr and kr and i != base else ""
        print(f"{row['label'] if i == 0 else '':<15.15} {name:<14.14} {fmt(s):>7}"
              + (f"{fmt(fio[i]):>8}" if has_fio else "")
              + f"{marks[i] + fmt(k):>9}{(f'{sr:.2f}' if sr else '-'):>7}"
              f"{(marks[i] + f'{kr:.2f}' if kr else '-'):>8}{off:>6}")
print(rule)
foot = (f"set, {'fio, ' if has_fio else ''}kura in {spec['unit']}; x: ratio to "
        f"{names[base]}; off: kura's ratio against the set one"
        + ("; fio: the same test by fio on the same stand-in, 2 s" if has_fio else ""))
for line in [foot] + ["pick: " + p["text"] for p in cmp.get("picks", [])]:
    print(textwrap.fill(line, 79, subsequent_indent="  "))
