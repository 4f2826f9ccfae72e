"""Template sources parsed once per process, whoever needs the tree first.

The checker reads what a template prints from its syntax tree (the ``pdg-values`` rule finds
which particle quantities it reads); the renderer compiles each template from the same tree.
Parsing is the larger part of compiling a template, so both ask :func:`parse`, which keeps
the trees by the environment's syntax and the source text: a template is parsed once in a
check, not once for the rule and again for the render pass. Compiling does not change a tree
(the renderer compiles without Jinja's optimizer, the one pass that rewrites trees).
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict

import jinja2
from jinja2 import nodes
from jinja2.parser import Parser

#: Most trees kept (the shipped games have about 25 templates; ``cardgen serve`` parses each
#: edited version again, so old ones must go).
MAX_TREES = 256

_TREES: OrderedDict[tuple[tuple[object, ...], str], nodes.Template] = OrderedDict()


def _syntax(env: jinja2.Environment) -> tuple[object, ...]:
    """What decides how ``env`` parses a source: its delimiters, whitespace handling and
    extensions (the same settings Jinja keys its lexers by, plus the extensions' tags)."""
    return (env.block_start_string, env.block_end_string, env.variable_start_string, env.variable_end_string,
            env.comment_start_string, env.comment_end_string, env.line_statement_prefix, env.line_comment_prefix,
            env.trim_blocks, env.lstrip_blocks, env.newline_sequence, env.keep_trailing_newline,
            tuple(sorted(env.extensions)))


def parse(env: jinja2.Environment, source: str, name: str | None = None,
          filename: str | None = None) -> nodes.Template:
    """The tree of ``source`` as ``env`` parses it, parsed at most once per process for each
    syntax; raises Jinja's :class:`~jinja2.TemplateSyntaxError` (naming ``name`` and
    ``filename``) for a source that does not parse (not kept: it names the first asker)."""
    key = (_syntax(env), hashlib.sha256(source.encode("utf-8")).hexdigest())
    tree = _TREES.get(key)
    if tree is None:
        tree = _TREES[key] = Parser(env, source, name, filename).parse()
        if len(_TREES) > MAX_TREES:
            _TREES.popitem(last=False)
    else:
        _TREES.move_to_end(key)
    return tree
