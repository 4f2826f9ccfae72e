"""Affine maps of the plane as SVG, PDF and cairo write them: ``(a, b, c, d, e, f)`` for
x' = a x + c y + e, y' = b x + d y + f.

Pure arithmetic that several stages need — the drawing (a face's page and its clip), the
layout (pieces placed on sheets), the legibility geometry (shapes under their transforms) —
kept here, outside every stage, so that none of them reaches into a later one for it.
"""

from __future__ import annotations

Affine = tuple[float, float, float, float, float, float]


def compose(m1: Affine, m2: Affine) -> Affine:
    """m1 ∘ m2: apply m2 first, then m1."""
    a1, b1, c1, d1, e1, f1 = m1
    a2, b2, c2, d2, e2, f2 = m2
    return (
        a1 * a2 + c1 * b2,
        b1 * a2 + d1 * b2,
        a1 * c2 + c1 * d2,
        b1 * c2 + d1 * d2,
        a1 * e2 + c1 * f2 + e1,
        b1 * e2 + d1 * f2 + f1,
    )


def apply(m: Affine, x: float, y: float) -> tuple[float, float]:
    """Image of one point under an affine map."""
    a, b, c, d, e, f = m
    return (a * x + c * y + e, b * x + d * y + f)


def image_bounds(m: Affine, x0: float, y0: float, x1: float, y1: float) -> tuple[float, float, float, float]:
    """Bounds (x0, y0, x1, y1) of the image of the box with corners (x0, y0) and (x1, y1)."""
    pts = [apply(m, x, y) for x in (x0, x1) for y in (y0, y1)]
    xs = [p[0] for p in pts]
    ys = [p[1] for p in pts]
    return min(xs), min(ys), max(xs), max(ys)
