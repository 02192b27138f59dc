"""How much of what each emitter can print the catalog knows (issue 14, item 1).

Every `scripts/catalog_emitters/<family>.toml` lists one emitter family's error and warning
texts as read from its own sources: `[[text]]` tables with the `source` file, the `format`
string and one rendered `text`. Each text goes through the scanner's own matcher
(`Scanner.match_line`, anchors and patterns of the built-in catalog plus any `--catalog`
overrides); the script prints, per family and source file, how many texts a signature matches.
Add a family by adding a file: nothing here names one.

    uv run --frozen python scripts/catalog_coverage.py            # markdown table
    uv run --frozen python scripts/catalog_coverage.py --missing  # and the texts not matched
"""

from __future__ import annotations

import argparse
import sys
import tomllib
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from autorecover.domain.catalog import build_catalog, builtin_documents, parse_document
from autorecover.parsing.scanning import Scanner

EMITTERS = Path(__file__).resolve().parent / "catalog_emitters"


@dataclass(frozen=True)
class Text:
    family: str
    source: str
    format: str
    text: str


@dataclass
class Tally:
    texts: int = 0
    matched: int = 0
    decided: int = 0  # matched by a signature that is not `info`


def load(directory: Path) -> list[Text]:
    """Every emitter text of every family file in `directory`."""
    out = []
    for path in sorted(directory.glob("*.toml")):
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
        family = str(doc.get("family", path.stem))
        for row in doc.get("text", []):
            out.append(Text(family, str(row["source"]), str(row["format"]), str(row["text"])))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--emitters", type=Path, default=EMITTERS)
    parser.add_argument("--catalog", type=Path, action="append", default=[])
    parser.add_argument("--missing", action="store_true", help="list the texts not matched")
    args = parser.parse_args(argv)

    docs = builtin_documents()
    docs += [(str(p), parse_document(p.read_text(encoding="utf-8"), str(p))) for p in args.catalog]
    scanner = Scanner(build_catalog(docs))
    texts = load(args.emitters)
    if not texts:
        print(f"no emitter texts under {args.emitters}", file=sys.stderr)
        return 1

    tallies: dict[tuple[str, str], Tally] = defaultdict(Tally)
    totals: dict[str, Tally] = defaultdict(Tally)
    missing: list[Text] = []
    for t in texts:
        hits = scanner.match_line(t.text)
        for tally in (tallies[t.family, t.source], totals[t.family]):
            tally.texts += 1
            tally.matched += bool(hits)
            tally.decided += any(sig.blame.value != "info" for sig, _ in hits)
        if not hits:
            missing.append(t)

    print("| Family | Source | Texts | Matched | Matched, not info |")
    print("|---|---|---:|---:|---:|")
    for (family, source), tally in sorted(tallies.items()):
        print(f"| {family} | `{source}` | {tally.texts} | {tally.matched} | {tally.decided} |")
    for family, tally in sorted(totals.items()):
        share = 100 * tally.matched / tally.texts
        print(
            f"| **{family}** | all | **{tally.texts}** | **{tally.matched}** ({share:.0f} %) "
            f"| **{tally.decided}** |"
        )
    if args.missing:
        print("\nNot matched:")
        for t in missing:
            print(f"- {t.family} `{t.source}`: {t.format}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
