"""No import circle in workbench/ (issue 22): the graph grimp builds (the one import-linter
checks the layers on, lazy imports inside functions included) has no strongly connected
component of more than one module (a circle that must stay would be listed in KNOWN with its
reason)."""

from __future__ import annotations

import grimp

#: circles allowed, each with why it is there
KNOWN: set[frozenset[str]] = set()  # none left (the parsers registry circle is gone)


def circles(graph: grimp.ImportGraph) -> list[frozenset[str]]:
    """The graph's strongly connected components of two modules or more (Tarjan)."""
    edges = {m: graph.find_modules_directly_imported_by(m) for m in graph.modules}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[frozenset[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(frozenset(comp))

    for m in sorted(graph.modules):
        if m not in index:
            visit(m)
    return found


def test_a_circle_is_found_where_there_is_one():
    graph = grimp.ImportGraph()
    for a, b in (("p.a", "p.b"), ("p.b", "p.c"), ("p.c", "p.a"), ("p.c", "p.d")):
        graph.add_import(importer=a, imported=b)
    assert circles(graph) == [frozenset({"p.a", "p.b", "p.c"})]


def test_no_import_circle_in_workbench():
    graph = grimp.build_graph("workbench", cache_dir=None)
    assert [sorted(c) for c in circles(graph) if c not in KNOWN] == []
