"""Start cairocffi without parsing its C declarations in every process, and cairosvg
without Pillow until a face needs it, nor Python's URL fetching until it fetches a URL.

``import cairocffi`` hands cairo's ~600 C declarations to cffi, which parses them with
pycparser: 0.2 s of pure Python, paid by every process that draws — the build's worker
processes each paid it before drawing their first face. cffi's "out-of-line ABI mode" keeps
the parsed declarations as data in a generated module instead, which loads in ~5 ms; cairo
itself is still opened by cairocffi, in the same way.

The generated modules (``_cairo.py``, ``_pixbuf.py``) come from the installed cairocffi's own
declarations; they record a digest of the cairocffi source they were made from, and are used
only when the installed cairocffi has exactly that source (and no XCB support, which adds
declarations). Otherwise cairocffi parses its declarations as usual: slower, never wrong.
After upgrading cairocffi, regenerate them with ``python -m cardgen.cairoffi``.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import importlib.util
import sys
import threading
import types
from pathlib import Path
from typing import Any, Iterator

HERE = Path(__file__).resolve().parent
#: cairocffi's files that hold its C declarations.
SOURCES = ("ffi.py", "constants.py")


def package_folder(name: str) -> Path | None:
    """The folder of the installed package ``name``, found without importing it."""
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0])


def source_digest(folder: Path) -> str:
    """sha256 of cairocffi's declaration files: what the generated modules depend on."""
    h = hashlib.sha256()
    for name in SOURCES:
        h.update(name.encode() + b"\0" + (folder / name).read_bytes() + b"\0")
    return h.hexdigest()


def preload() -> bool:
    """Make the coming ``import cairocffi`` use the pre-parsed declarations, if they match
    the installed cairocffi. True if cairocffi uses them (now or already)."""
    current = sys.modules.get("cairocffi.ffi")
    if current is not None or "cairocffi" in sys.modules:
        return getattr(current, "PREPARSED", False)
    folder = package_folder("cairocffi")
    if folder is None or importlib.util.find_spec("xcffib") is not None:
        return False
    try:
        from . import _cairo
        if _cairo.SOURCE_DIGEST != source_digest(folder):
            return False
    except Exception:  # noqa: BLE001 — an unreadable cairocffi or an incompatible cffi: parse as usual
        return False
    module = types.ModuleType("cairocffi.ffi", "cairocffi's FFI, from cardgen's pre-parsed declarations.")
    module.PREPARSED = True  # type: ignore[attr-defined]
    module.ffi = _cairo.ffi  # type: ignore[attr-defined]
    module.__getattr__ = _lazy_pixbuf  # type: ignore[attr-defined]  # only cairocffi.pixbuf needs it
    sys.modules["cairocffi.ffi"] = module
    return True


def import_cairocffi() -> types.ModuleType:
    """``import cairocffi``, with :func:`preload` first and, on Linux, without its library
    lookup's subprocesses.

    cairocffi turns the name "cairo" into a file with ``ctypes.util.find_library``, which on
    Linux runs ldconfig, gcc and ld in subprocesses (30 ms, measured) to answer with a
    soname that dlopen then looks up in the linker's path anyway; when the lookup finds
    nothing, cairocffi opens "libcairo.so.2" directly, which dlopen finds the same way. So
    during the import the lookup finds nothing. Should that fail (a cairo with another
    soname), the import runs again with the real lookup."""
    preload()
    if "cairocffi" in sys.modules or not sys.platform.startswith("linux"):
        import cairocffi
        return cairocffi
    import ctypes.util

    real = ctypes.util.find_library
    ctypes.util.find_library = _not_found
    try:
        import cairocffi
        cairocffi.find_library = real   # later lookups (cairocffi.pixbuf) are the real ones
        return cairocffi
    except OSError:
        for name in [m for m in sys.modules if m == "cairocffi" or m.startswith("cairocffi.")]:
            if name != "cairocffi.ffi":   # keep the pre-parsed declarations
                del sys.modules[name]
    finally:
        ctypes.util.find_library = real
    import cairocffi
    return cairocffi


def import_cairosvg() -> types.ModuleType:
    """``import cairosvg`` the fast way: cairocffi through :func:`import_cairocffi`, and
    cairosvg's raster images (with Pillow) and its URL fetching (with ``urllib.request``)
    loaded only when a face has artwork.

    Every cardgen module that uses cairosvg calls this before importing any part of it:
    ``from cairosvg.colors import COLORS`` alone imports all of cairosvg, and with it
    cairocffi, the slow way (the tests import each module in a fresh process to check)."""
    import_cairocffi()
    _defer_raster_images()
    with _url_fetching_deferred():
        import cairosvg
    return cairosvg


@contextlib.contextmanager
def _url_fetching_deferred() -> Iterator[None]:
    """While cairosvg is imported, a stand-in for ``urllib.request``.

    ``cairosvg.url`` imports ``Request`` and ``urlopen`` from it, and with it ``http.client``,
    ``email`` and ``ssl``: 20 ms of every process that draws (measured with ``-X importtime``),
    although cairosvg fetches only for a face with artwork (cardgen embeds it as a ``data:``
    URI, which cairosvg reads through ``urlopen`` too). The stand-in gives cairosvg two
    functions that import the real module on their first call and call it, so it behaves
    exactly as before; any other name it asked for would be the real module's. The stand-in
    leaves ``sys.modules`` with the import: a later ``import urllib.request`` anywhere gets the
    real module."""
    if "cairosvg" in sys.modules or "urllib.request" in sys.modules:
        yield
        return
    stand_in = types.ModuleType("urllib.request", "urllib.request, imported on first use (cardgen.cairoffi).")

    lock = threading.Lock()

    def real() -> types.ModuleType:
        with lock:
            if sys.modules.get("urllib.request") is stand_in:
                del sys.modules["urllib.request"]
            return importlib.import_module("urllib.request")

    stand_in.Request = lambda *args, **kwargs: real().Request(*args, **kwargs)  # type: ignore[attr-defined]
    stand_in.urlopen = lambda *args, **kwargs: real().urlopen(*args, **kwargs)  # type: ignore[attr-defined]

    def other(name: str) -> Any:
        if name.startswith("__"):   # what the import system asks of any module (__path__ ...)
            raise AttributeError(name)
        return getattr(real(), name)

    stand_in.__getattr__ = other  # type: ignore[attr-defined]
    sys.modules["urllib.request"] = stand_in
    try:
        yield
    finally:
        with lock:
            if sys.modules.get("urllib.request") is stand_in:
                del sys.modules["urllib.request"]


def _defer_raster_images() -> None:
    """Have cairosvg load its raster-image module, and with it Pillow, on first use.

    ``import cairosvg`` imports Pillow (17 ms in a fresh interpreter, 45 ms measured in a
    build's main process, where the garbage collector walks the loaded games while Pillow
    builds its EXIF tag enumerations) for ``<image>`` elements holding PNG or JPEG data,
    which most faces do not have. Until cairosvg first draws one, its ``cairosvg.image`` module is stood in for by
    one whose two functions load the real module and call it. Nothing changes if cairosvg
    is already imported."""
    if "cairosvg" in sys.modules or "cairosvg.image" in sys.modules:
        return
    folder = package_folder("cairosvg")
    if folder is None:
        return
    spec = importlib.util.spec_from_file_location("cairosvg.image", folder / "image.py")
    stand_in = types.ModuleType("cairosvg.image", "cairosvg's raster images, loaded on first use (cardgen.cairoffi).")
    stand_in.__spec__ = spec
    lock = threading.Lock()

    def real() -> types.ModuleType:
        with lock:
            module = sys.modules.get("cairosvg.image")
            if module is None or module is stand_in:
                module = importlib.util.module_from_spec(spec)   # type: ignore[arg-type]
                spec.loader.exec_module(module)   # type: ignore[union-attr]
                sys.modules["cairosvg.image"] = module
            return module

    stand_in.image = lambda surface, node: real().image(surface, node)   # type: ignore[attr-defined]
    stand_in.invert_image = lambda img: real().invert_image(img)   # type: ignore[attr-defined]
    sys.modules["cairosvg.image"] = stand_in


def _not_found(name: str) -> None:
    return None


def _lazy_pixbuf(name: str) -> Any:
    if name == "ffi_pixbuf":
        from . import _pixbuf
        return _pixbuf.ffi
    raise AttributeError(name)


def generate(target: Path = HERE) -> None:
    """Write ``_cairo.py`` and ``_pixbuf.py`` from the installed cairocffi (slow path)."""
    if "cairocffi" in sys.modules:
        raise RuntimeError("generate() must run in a process that has not imported cairocffi")
    folder = package_folder("cairocffi")
    if folder is None:
        raise RuntimeError("cairocffi is not installed")
    import cairocffi
    declared = sys.modules["cairocffi.ffi"]
    digest = source_digest(folder)
    for name, ffi in (("_cairo", declared.ffi), ("_pixbuf", declared.ffi_pixbuf)):
        ffi.set_source(f"{__name__}.{name}", None)
    for name, ffi in (("_cairo", declared.ffi), ("_pixbuf", declared.ffi_pixbuf)):
        path = target / f"{name}.py"
        ffi.emit_python_code(str(path))
        code = path.read_text()
        path.write_text(f"# Generated by `python -m cardgen.cairoffi` from cairocffi {cairocffi.VERSION}; "
                        f"do not edit.\n{code}\nSOURCE_DIGEST = {digest!r}\n")
