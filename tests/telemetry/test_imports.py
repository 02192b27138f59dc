"""The telemetry library's imports: no circle between its modules, not even one closed only by
a type-checking import, and nothing outside the standard library."""

from __future__ import annotations

import sys

import grimp

PACKAGE = "autorecover.telemetry"


def _ours(module: str) -> bool:
    return module == PACKAGE or module.startswith(f"{PACKAGE}.")


def test_no_telemetry_module_imports_one_that_imports_it_back() -> None:
    graph = grimp.build_graph(
        "autorecover",
        include_external_packages=False,
        exclude_type_checking_imports=False,  # `if TYPE_CHECKING:` imports count too
        cache_dir=None,
    )
    modules = sorted(m for m in graph.modules if _ours(m))
    assert "autorecover.telemetry.recorder" in modules
    circles = []
    for importer in modules:
        for imported in sorted(filter(_ours, graph.find_modules_directly_imported_by(importer))):
            back = graph.find_shortest_chain(importer=imported, imported=importer)
            if back is not None:
                circles.append(f"{importer} -> {' -> '.join(back)}")
    assert circles == []


def test_telemetry_imports_only_itself_and_the_standard_library() -> None:
    graph = grimp.build_graph("autorecover", include_external_packages=True, cache_dir=None)
    imported = {
        module
        for importer in graph.modules
        if _ours(importer)
        for module in graph.find_modules_directly_imported_by(importer)
    }
    outside = sorted(m for m in imported if not _ours(m))
    assert "threading" in outside  # the standard library is seen
    assert [m for m in outside if m.split(".")[0] not in sys.stdlib_module_names] == []
