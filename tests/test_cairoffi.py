"""The pre-parsed cairo declarations: used only when they match the installed cairocffi,
declare exactly what cairocffi's own parse declares, and draw byte-identical PDFs."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

from cffi import FFI

import cardgen.cairoffi as cairoffi
from cardgen.cairoffi import _cairo, _pixbuf

ROOT = Path(__file__).resolve().parent.parent


def python(code: str) -> str:
    """Run ``code`` in a fresh interpreter (cairocffi can be imported once per process)."""
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_committed_modules_are_what_generate_makes_or_are_left_unused(tmp_path):
    python(f"import cardgen.cairoffi as c; from pathlib import Path; c.generate(Path({str(tmp_path)!r}))")
    fresh = {name: (tmp_path / name).read_text() for name in ("_cairo.py", "_pixbuf.py")}
    committed = {name: (cairoffi.HERE / name).read_text() for name in fresh}
    used = python("from cardgen import cairoffi; print(cairoffi.preload())").strip()
    if fresh["_cairo.py"].splitlines()[-1] == committed["_cairo.py"].splitlines()[-1]:   # same SOURCE_DIGEST
        assert fresh == committed, "regenerate with: python -m cardgen.cairoffi"
        assert used == "True"
    else:   # a cairocffi with other declarations than the committed modules: parse as usual
        assert used == "False"


def test_a_stale_digest_falls_back_to_parsing():
    out = python("""
        import sys
        import cardgen.cairoffi._cairo as generated
        generated.SOURCE_DIGEST = "0" * 64
        from cardgen import cairoffi
        print(cairoffi.preload())
        import cardgen.draw
        print(type(sys.modules["cairocffi.ffi"].ffi).__module__)
        """)
    assert out.split() == ["False", "cffi.api"]


def shape(ffi: FFI, ctype) -> object:
    """A C type's structure, independent of how typedef names are spelled."""
    if ctype.kind == "function":
        return ("function", shape(ffi, ctype.result), tuple(shape(ffi, a) for a in ctype.args), ctype.ellipsis)
    if ctype.kind == "pointer":
        return ("pointer", shape(ffi, ctype.item))
    if ctype.kind == "array":
        return ("array", ctype.length, shape(ffi, ctype.item))
    if ctype.kind in ("struct", "union"):
        try:
            size = ffi.sizeof(ctype)   # also completes a lazily declared struct before .fields
        except (ValueError, TypeError, _cairo.ffi.error):  # opaque (the two FFIs raise differently)
            return (ctype.kind, "opaque")
        return (ctype.kind, size, tuple((n, f.offset, shape(ffi, f.type)) for n, f in ctype.fields))
    if ctype.kind == "enum":
        return ("enum", tuple(sorted(ctype.elements.items())))
    return (ctype.kind, ctype.cname)


def present(lib, name: str) -> bool:
    try:
        getattr(lib, name)
    except (AttributeError, _cairo.ffi.error):   # the two FFIs raise differently
        return False
    return True


def test_preparsed_declarations_equal_cairocffis_own():
    """Every function, type and constant cairocffi declares, with the same C type."""
    if not python("from cardgen import cairoffi; print(cairoffi.preload())").strip() == "True":
        return   # nothing pre-parsed is used with this cairocffi (see the test above)
    constants = (cairoffi.package_folder("cairocffi") / "constants.py").read_text()
    namespace: dict[str, object] = {}
    exec(compile(constants, "constants.py", "exec"), namespace)
    parsed = FFI()
    parsed.cdef(namespace["_CAIRO_HEADERS"])
    lib_parsed, lib_pre = parsed.dlopen("libcairo.so.2"), _cairo.ffi.dlopen("libcairo.so.2")
    names = dir(lib_parsed)
    assert len(names) > 300 and names == dir(lib_pre)
    checked = 0
    for name in names:
        found = [present(lib, name) for lib in (lib_parsed, lib_pre)]   # newer cairo's functions are absent
        assert found[0] == found[1], name
        if not found[0]:
            continue
        a, b = getattr(lib_parsed, name), getattr(lib_pre, name)
        checked += 1
        if isinstance(a, int):
            assert a == b, name
        else:
            assert shape(parsed, parsed.typeof(a)) == shape(_cairo.ffi, _cairo.ffi.typeof(b)), name
    assert checked > 300
    for ctype in ("cairo_matrix_t", "cairo_path_t", "cairo_path_data_t", "cairo_rectangle_t", "cairo_glyph_t"):
        assert parsed.sizeof(ctype) == _cairo.ffi.sizeof(ctype), ctype
    assert _pixbuf.ffi.sizeof("GError") == 16


def test_a_face_draws_the_same_pdf_either_way():
    draw = """
        import hashlib, re, sys
        {before}
        import cardgen
        from cardgen.draw import render_pdf
        from cardgen.render import Renderer
        game = cardgen.load_game("tutti-quantum")
        comp = game.components["particles"]
        face = Renderer(game).face(comp, comp.cards[0], "front").face
        pdf = re.sub(rb"/CreationDate \\([^)]*\\)", b"", render_pdf(face))   # cairo stamps the time
        print(type(sys.modules["cairocffi.ffi"].ffi).__module__, hashlib.sha256(pdf).hexdigest())
        """
    preparsed = python(draw.format(before="")).split()
    parsed = python(draw.format(before="import cairocffi")).split()   # imported first: cairocffi parses
    assert parsed[0] == "cffi.api"
    assert preparsed[1] == parsed[1]


def test_cairo_is_opened_without_library_lookup_subprocesses():
    """On Linux cairocffi's lookup of "cairo" ran ldconfig, gcc and ld (30 ms per process);
    import_cairocffi opens libcairo.so.2 through the dynamic linker instead, and leaves the
    real lookup in place for what cairocffi loads later."""
    out = python("""
        import sys, subprocess, ctypes.util
        started = []
        real_popen = subprocess.Popen.__init__
        def popen(self, *args, **kwargs):
            started.append(args[0])
            real_popen(self, *args, **kwargs)
        subprocess.Popen.__init__ = popen
        import cardgen.draw
        import cairocffi
        print(len(started), cairocffi.find_library is ctypes.util.find_library, cairocffi.cairo_version() > 0)
        """)
    expected = "0" if sys.platform.startswith("linux") else out.split()[0]
    assert out.split() == [expected, "True", "True"]


def test_if_cairo_cannot_be_opened_by_its_usual_name_the_real_lookup_is_used():
    out = python("""
        import sys, ctypes.util
        from cardgen import cairoffi
        tried = []
        class Unopenable:   # cairocffi's import fails as dlopen("libcairo.so.2") would
            def find_spec(self, name, path=None, target=None):
                if name == "cairocffi":
                    blocked = ctypes.util.find_library is cairoffi._not_found
                    tried.append(blocked)
                    if blocked:
                        raise OSError("cannot load library 'libcairo.so.2'")
                return None
        sys.meta_path.insert(0, Unopenable())
        cairocffi = cairoffi.import_cairocffi()
        print(cairocffi.cairo_version() > 0, tried[-2:] == [True, False])   # blocked, then the real lookup
        """)
    assert out.split() == (["True", "True"] if sys.platform.startswith("linux") else ["True", "False"])


def test_every_module_that_brings_in_cairo_brings_it_in_the_fast_way():
    """Whichever cardgen module a process imports first, cairocffi comes with its pre-parsed
    declarations and cairosvg without Pillow (unless the module's own code uses Pillow):
    ``from cairosvg.colors import COLORS`` at the top of a module once imported all of
    cairosvg the slow way, 0.15 s more for every build that measured a face before drawing
    one. Each module is imported alone, in a process forked from one that imported none."""
    out = python("""
        import importlib, os, sys
        from pathlib import Path
        root = Path("cardgen")
        names = sorted(".".join(p.with_suffix("").parts).removesuffix(".__init__") for p in root.rglob("*.py")
                       if p.name != "__main__.py")
        for name in names:
            r, w = os.pipe()
            if os.fork() == 0:
                os.close(r)
                importlib.import_module(name)
                ffi = sys.modules.get("cairocffi.ffi")
                cairo = "none" if ffi is None else "preparsed" if getattr(ffi, "PREPARSED", False) else "parsed"
                uses_pillow = any("import PIL" in s or "from PIL" in s for s in (
                    Path(m.__file__).read_text() for m in list(sys.modules.values())
                    if m.__name__.startswith("cardgen") and getattr(m, "__file__", None)))
                pillow = "pillow" if "PIL.Image" in sys.modules and not uses_pillow else "-"
                os.write(w, f"{name} {cairo} {pillow}\\n".encode())
                os._exit(0)
            os.close(w)
            sys.stdout.write(os.read(r, 1000).decode())
            os.wait()
        """)
    rows = [line.split() for line in out.splitlines()]
    assert len(rows) > 100
    assert [row[0] for row in rows if row[1] == "parsed"] == []
    assert [row[0] for row in rows if row[2] == "pillow"] == []
    assert {"cardgen.draw", "cardgen.directdraw", "cardgen.facegeometry", "cardgen.legibility"} <= {
        row[0] for row in rows if row[1] == "preparsed"}


def test_url_fetching_is_imported_when_a_face_first_fetches_and_draws_the_same():
    """cairosvg imports urllib.request (with http.client, email and ssl: 20 ms) for fetching;
    through cardgen it is imported when a face first embeds artwork (a ``data:`` URI, read
    through urlopen), and the face draws the same PDF as when cairosvg bound the real module."""
    draw = """
        import hashlib, re, sys
        {before}
        from cardgen.draw import render_svg_pdf
        png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
        svg = ('<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
               'width="10mm" height="10mm" viewBox="0 0 10 10"><rect width="10" height="10" fill="#123456"/>'
               f'<image x="2" y="2" width="6" height="6" xlink:href="data:image/png;base64,{{png}}"/></svg>')
        before = "urllib.request" in sys.modules
        stamp = lambda pdf: re.sub(rb"/CreationDate \\([^)]*\\)", b"", pdf)   # cairo stamps the time
        plain = stamp(render_svg_pdf(svg.replace("<image", "<!--").replace("/></svg>", "--></svg>")))
        between = "urllib.request" in sys.modules
        pdf = stamp(render_svg_pdf(svg))
        import urllib.request
        real = urllib.request.urlopen.__module__
        print(before, between, "urllib.request" in sys.modules, real, hashlib.sha256(pdf).hexdigest(),
              pdf != plain and b"/Image" in pdf)
        """
    deferred = python(draw.format(before="")).split()
    bound = python(draw.format(before="import urllib.request")).split()
    assert deferred[:4] == ["False", "False", "True", "urllib.request"]
    assert bound[:3] == ["True", "True", "True"]
    assert deferred[4] == bound[4] and deferred[5] == "True"   # the artwork is drawn
