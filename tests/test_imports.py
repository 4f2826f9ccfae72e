"""The pipeline's import graph: no cycles, and no stage importing a later one.

The stages run load → check → render → draw → lay out → write → cli; a module may use
what an earlier stage made, never reach forward (a checker that imports the PDF writer, or a
renderer that imports the build, ties an early stage to a late one and makes cycles easy).
Imports are read from the source (module level and inside functions alike)."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "cardgen"

#: The stage of each module (by dotted name under cardgen, or its first part); modules not
#: listed are shared utilities any stage may use, as long as they import no stage.
STAGES = ["load", "check", "render", "draw", "layout", "write", "cli"]
STAGE_OF = {
    "loader": "load", "loadapart": "load", "yamlsrc": "load", "yamlcache": "load", "schema": "load", "model": "load", "spreadsheets": "load",
    "templatefiles": "load",
    "check": "check", "rules": "check", "fitcheck": "check", "rendercheck": "check", "proof": "check",
    "checkfaces": "check", "legibility": "check", "facegeometry": "check", "verdicts": "check",
    "render": "render", "text": "render", "budget": "render", "images": "render",
    "draw": "draw", "svgtree": "draw", "directdraw": "draw", "directpdf": "draw",
    "imposition": "layout",
    "pdfwrite": "write", "pdfdoc": "write", "pdfcontent": "write", "pdfmarks": "write", "build": "write",
    "sheets": "write", "sheetlayout": "write", "textlayer": "write", "cutfile": "write", "output": "write",
    "export": "write", "tts_pieces": "write", "tts_text": "write", "tts_validate": "write", "preview": "write",
    "uptodate": "write",
    "cli": "cli", "cli_export": "cli", "cli_help": "cli", "cli_common": "cli", "serve": "cli", "serve_pages": "cli",
    "api": "cli", "__main__": "cli", "cli_daemon": "cli", "daemon": "cli",
}
#: Reaching forward on purpose, each with its reason (checked: an entry that is no longer
#: needed fails the test, so the list only shrinks).
ALLOWED = {
    ("rendercheck", "sheets"): "and lays out the rule sheets, whose text must fit too",
    ("fitcheck", "sheets"): "text fit on the rule sheets is measured on their laid-out pages",
    ("fitcheck", "render"): "text fit is measured on faces rendered as they print",
    ("rendercheck", "draw"): "and draws them, so markup cairo refuses fails the check as it would the build",
    ("checkfaces", "render"): "faces are rendered once per check, for every rule that reads what a card prints",
    ("checkfaces", "draw"): "and drawn once, when the render pass takes them or, past the faces kept whole, at once",
    ("legibility", "render"): "text size, contrast and turned indices are measured on the rendered faces",
    ("legibility", "text"): "and on the text placed in them, glyph by glyph",
    ("facegeometry", "text"): "which it finds by the placeholders the text engine writes into a face",
}


def modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        rel = path.relative_to(PACKAGE).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The cardgen modules ``name`` imports (``from . import x`` resolved to ``x``)."""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found: set[str] = set()
    for node in _runtime_nodes(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - node.level + 1] if node.level > 1 else package
                stem = ".".join(base + ([node.module] if node.module else []))
            elif node.module and node.module.startswith("cardgen"):
                stem = node.module.removeprefix("cardgen").lstrip(".")
            else:
                continue
            for alias in node.names:
                full = f"{stem}.{alias.name}".lstrip(".")
                found.add(full if full in known else stem)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("cardgen."):
                    found.add(alias.name.removeprefix("cardgen."))
    return {m for m in found if m in known and m != name and m != ""}


def _runtime_nodes(tree: ast.AST):
    """Every node, except under ``if TYPE_CHECKING:`` (imports for type hints never run)."""
    todo = [tree]
    while todo:
        node = todo.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and getattr(child.test, "id", None) == "TYPE_CHECKING":
                todo.extend(child.orelse)
                continue
            todo.append(child)


def graph() -> dict[str, set[str]]:
    known = modules()
    return {name: imports(name, path, known) for name, path in known.items()}


def stage(module: str) -> str | None:
    return STAGE_OF.get(module) or STAGE_OF.get(module.split(".")[0])


def test_no_import_cycles():
    g = graph()
    # the package's own __init__ re-exports its stages (lazily); submodules are what matters
    g.pop("", None)
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(m: str) -> None:
        state[m] = 1
        stack.append(m)
        for dep in sorted(g.get(m, ())):
            if dep.startswith(m + "."):   # a package importing its own modules is not a cycle
                continue
            if state.get(dep) == 1 and not m.startswith(dep + "."):
                cycle = stack[stack.index(dep):] + [dep]
                raise AssertionError("import cycle: " + " → ".join(cycle))
            if dep not in state:
                visit(dep)
        stack.pop()
        state[m] = 2

    for module in sorted(g):
        if module not in state:
            visit(module)


def test_no_stage_imports_a_later_one():
    g = graph()
    g.pop("", None)
    used = set()
    wrong = []
    for module, deps in sorted(g.items()):
        own = stage(module)
        for dep in sorted(deps):
            theirs = stage(dep)
            if own is None or theirs is None or STAGES.index(theirs) <= STAGES.index(own):
                continue
            key = next((k for k in ALLOWED if module.startswith(k[0]) and dep.startswith(k[1])), None)
            if key:
                used.add(key)
            else:
                wrong.append(f"{module} ({own}) imports {dep} ({theirs})")
    assert not wrong, "\n".join(wrong)
    assert used == {k for k in ALLOWED if stage(k[1]) and stage(k[0]) and
                    STAGES.index(stage(k[1])) > STAGES.index(stage(k[0]))}, "ALLOWED lists unused exceptions"
