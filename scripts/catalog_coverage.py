"""How much of what each emitter can print the catalog knows (issue 14, item 1).

Every `scripts/catalog_emitters/<family>.toml` lists one emitter family's error and warning
texts as read from its own sources: `[[text]]` tables with the `source` file, the `format`
string and one rendered `text`. Each text goes through the scanner's own matcher
(`Scanner.match_line`, anchors and patterns of the built-in catalog plus any `--catalog`
overrides); the script prints, per family and source file, how many texts a signature matches.
Add a family by adding a file: nothing here names one.

A family may also list `[[carrier]]` tables: other programs that print its texts inside their own
wording (an old PyTorch's "cuda runtime error (N) : TEXT", NCCL's "Cuda failure 'TEXT'", an NGC
container's "[[ TEXT (error N) ]]"). A text is carried when its `source` ends in "<code> <name>"
and its `format` is a literal prefix before `%s`, or when it gives `message`, `code` and `name`
(and perhaps `alias`, another spelling of the name). It is rendered through each carrier of its
family: `{text}`, `{Text}` (first letter upper-cased), `{lower}` (first letter lower-cased, as
Go and libuv spell strerror texts), `{short}` (without NCCL's later
" (run with ...)" advice), `{code}`, `{name}`, `{alias}`; a carrier's `codes` limits it to the
errors it can meet. The second table counts the renderings that read as the family's own line
does: the same blame from the strongest specific entry. `--missing` lists those that do not.

    uv run --frozen python scripts/catalog_coverage.py            # markdown table
    uv run --frozen python scripts/catalog_coverage.py --missing  # and the texts not matched
"""

from __future__ import annotations

import argparse
import re
import sys
import tomllib
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from autorecover.domain.catalog import build_catalog, builtin_documents, parse_document
from autorecover.domain.records import Blame
from autorecover.parsing.scanning import GENERIC_SIGNATURES, Scanner

EMITTERS = Path(__file__).resolve().parent / "catalog_emitters"


@dataclass(frozen=True)
class Text:
    family: str
    source: str
    format: str
    text: str
    # For carriers, when `source` and `format` cannot say them: the bare message, its number,
    # its enum name and another spelling of that name (`NCCL_ERROR_SYSTEM_ERROR`).
    message: str | None = None
    code: int | None = None
    name: str | None = None
    alias: str | None = None


@dataclass(frozen=True)
class Carrier:
    family: str
    source: str
    format: str
    codes: frozenset[int] | None  # None: any code


@dataclass(frozen=True)
class Carried:
    carrier: Carrier
    line: str
    own: Blame  # how the family's own line reads
    carried: Blame | None  # how the carried line reads (None: no specific entry)


_CODED_SOURCE = re.compile(r"\s(?P<code>\d+)\s+(?P<name>\w+)$")
_SHORT = re.compile(r" \(run with | - please report")  # an older library's shorter message


@dataclass
class Tally:
    texts: int = 0
    matched: int = 0
    decided: int = 0  # matched by a signature that is not `info`


def _families(directory: Path) -> list[tuple[str, dict[str, Any]]]:
    """Each family file in `directory`: its family name and its TOML document."""
    out = []
    for path in sorted(directory.glob("*.toml")):
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
        out.append((str(doc.get("family", path.stem)), doc))
    return out


def load(directory: Path) -> list[Text]:
    """Every emitter text of every family file in `directory`."""
    return [
        Text(
            family,
            str(row["source"]),
            str(row["format"]),
            str(row["text"]),
            row.get("message"),
            row.get("code"),
            row.get("name"),
            row.get("alias"),
        )
        for family, doc in _families(directory)
        for row in doc.get("text", [])
    ]


def load_carriers(directory: Path) -> list[Carrier]:
    """Every carrier of every family file in `directory`."""
    return [
        Carrier(
            family,
            str(row["source"]),
            str(row["format"]),
            None if row.get("codes") is None else frozenset(int(c) for c in row["codes"]),
        )
        for family, doc in _families(directory)
        for row in doc.get("carrier", [])
    ]


def reading(scanner: Scanner, line: str) -> Blame | None:
    """The blame of the strongest specific, non-info entry that matches `line`."""
    hits = [
        sig
        for sig, _ in scanner.match_line(line)
        if sig.blame is not Blame.INFO and sig.key not in GENERIC_SIGNATURES
    ]
    return max(hits, key=lambda sig: sig.weight).blame if hits else None


def _coded(t: Text) -> tuple[str, int, str, str] | None:
    """A text's bare message, number, name and alias, when it has them."""
    if t.message is not None and t.code is not None and t.name is not None:
        return t.message, t.code, t.name, t.alias or t.name
    coded = _CODED_SOURCE.search(t.source)
    prefix, _, rest = t.format.partition("%s")
    if coded is None or rest or not t.text.startswith(prefix):
        return None
    return t.text[len(prefix) :], int(coded["code"]), coded["name"], coded["name"]


def carried(texts: list[Text], carriers: list[Carrier], scanner: Scanner) -> list[Carried]:
    """Each coded text of a family rendered through each of the family's carriers."""
    out = []
    for t in texts:
        coded = _coded(t)
        if coded is None:
            continue
        own = reading(scanner, t.text)
        if own is None:
            continue  # not read on its own: the first table counts it
        message, code, name, alias = coded
        for c in carriers:
            if c.family != t.family or (c.codes is not None and code not in c.codes):
                continue
            line = c.format.format(
                text=message,
                Text=message[:1].upper() + message[1:],
                lower=message[:1].lower() + message[1:],
                short=_SHORT.split(message, maxsplit=1)[0],
                code=code,
                name=name,
                alias=alias,
            )
            out.append(Carried(c, line, own, reading(scanner, line)))
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
    rows = carried(texts, load_carriers(args.emitters), scanner)
    if rows:
        print("\n| Family | Carrier | Texts | Read alike |")
        print("|---|---|---:|---:|")
        by_carrier: dict[Carrier, list[Carried]] = defaultdict(list)
        for row in rows:
            by_carrier[row.carrier].append(row)
        for c, group in by_carrier.items():
            alike = sum(r.carried is r.own for r in group)
            print(f"| {c.family} | {c.source} | {len(group)} | {alike} |")
    if args.missing:
        print("\nNot matched:")
        for t in missing:
            print(f"- {t.family} `{t.source}`: {t.format}")
        print("\nCarried, read otherwise:")
        for row in rows:
            if row.carried is not row.own:
                print(f"- `{row.line}`: {row.carried} (own line: {row.own})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
