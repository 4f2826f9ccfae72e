"""cairosvg's document tree for a face, built without its CSS machinery (part of the drawing
stage, :mod:`cardgen.draw`).

Faces have no style sheets, so the tree is assembled here the way cairosvg assembles it,
minus matching every element against empty rule lists; that goes through cairosvg's
internals (``Tree.__new__``, ``Node.__init__`` and the element wrapper it reads), which
pyproject.toml bounds and :func:`parses_like_cairosvg` checks.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from . import cairoffi

cairoffi.import_cairosvg()   # before cairosvg's modules: see there

from cairosvg import parser as cairosvg_parser  # noqa: E402
from cairosvg.parser import Node, Tree  # noqa: E402
from cairosvg.url import safe_fetch  # noqa: E402


class _Element:
    """What cairosvg's :class:`~cairosvg.parser.Node` reads of the ``cssselect2``
    element wrapper it is given: the element, its split tag, its id and element children."""

    __slots__ = ("etree_element", "local_name", "namespace_url")

    def __init__(self, element: Any) -> None:
        self.etree_element = element
        namespace, brace, local = element.tag[1:].partition("}") if element.tag[:1] == "{" else ("", "", "")
        self.namespace_url, self.local_name = (namespace, local) if brace else ("", element.tag)

    @property
    def id(self) -> str | None:
        return self.etree_element.get("id")

    def iter_children(self) -> Iterator[_Element]:
        for child in self.etree_element:
            if isinstance(child.tag, str):   # not comments or processing instructions
                yield _Element(child)


class _NoStyleSheet:
    """A style sheet without rules: no element matches anything."""

    @staticmethod
    def match(element: Any) -> tuple[()]:
        return ()


def parse(body: bytes, without_css: bool = True) -> Tree:
    """cairosvg's tree for a face's SVG document.

    Faces carry no style sheets (templates style with attributes), yet cairosvg wraps every
    element for its CSS selector engine and matches each against the empty rule lists:
    half of its parsing time, 0.06 s of CPU for the shipped decks. Without a ``<style>``,
    the tree is built here as cairosvg builds it, minus that matching (the same nodes with
    the same properties: a test compares them for every shipped face). A document with a
    style sheet, or ``without_css`` false (the caller found cairosvg's internals changed,
    see :func:`parses_like_cairosvg`), is parsed by cairosvg's public ``Tree``."""
    if b"<style" in body or not without_css:
        return Tree(bytestring=body)
    return _tree_without_css(body)


def _tree_without_css(body: bytes) -> Tree:
    """The tree built through cairosvg's internals (``Tree.__new__``, ``Node.__init__``)."""
    xml = cairosvg_parser.ElementTree.fromstring(body, forbid_entities=True, forbid_external=True)
    tree = Tree.__new__(Tree)
    tree.url_fetcher, tree.url, tree.xml_tree = safe_fetch, None, xml
    Node.__init__(tree, _Element(xml), (_NoStyleSheet, _NoStyleSheet), safe_fetch)
    tree.root = True
    return tree


#: A document using what faces use — nesting, inherited and overridden properties, ids,
#: references, a namespaced attribute, a comment — parsed both ways by :func:`parses_like_cairosvg`.
_PROBE = b"""<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"
 width="10mm" height="8mm" viewBox="0 0 10 8" fill="#123456" font-size="3">
<defs><linearGradient id="g"><stop offset="0" stop-color="red"/><stop offset="1" stop-color="blue"/></linearGradient>
<clipPath id="c"><rect width="5" height="5"/></clipPath></defs><!-- a comment -->
<g transform="translate(1 1)" stroke="black" stroke-width="0.2" opacity="0.5" clip-path="url(#c)">
<rect x="0" y="0" width="4" height="3" fill="url(#g)"/><circle cx="2" cy="2" r="1" stroke="none"/>
<use xlink:href="#c" x="1"/><path d="M0 0L1 1" style="fill:none"/></g></svg>"""


def _node_shape(node: Any) -> tuple:
    """What cairosvg draws from in a node: tag, properties, text, url and children alike."""
    return (node.tag, dict(node), node.text, node.url, [_node_shape(child) for child in node.children])


def parses_like_cairosvg() -> bool:
    """Whether :func:`_tree_without_css` gives the tree cairosvg's own parser gives for
    :data:`_PROBE`: false once a cairosvg release changes the internals it builds on."""
    try:
        return _node_shape(_tree_without_css(_PROBE)) == _node_shape(Tree(bytestring=_PROBE))
    except Exception:  # noqa: BLE001 — any change of those internals
        return False
