"""Paper and cuts for the shipped games: one grid per component, each on sheets of its own
(how cardgen laid pieces out before), against the layout a build uses now (lozenges
interlocking on shared cuts, small components sharing sheets). Prints a table; nothing is
rendered, only planned.

    .venv/bin/python bench/bench_paper.py [--paper a4] [--sets N]
"""

from __future__ import annotations

import argparse
import math

import cardgen
from cardgen.build import BuildOptions, _band_plan, _geometry, print_jobs
from cardgen.imposition import ImpositionError, plan_grid, plan_sheet, plan_tiles, stack_bands
from cardgen.model import Component
from cardgen.paper import Paper

GAMES = ("particle-builder", "tutti-quantum", "qcd", "particles-in-circle")


def before(comp: Component, paper: Paper, sets: int) -> tuple[int, int]:
    """Sheets and cuts with one grid per component on sheets of its own."""
    count = comp.total * sets
    try:
        plan = plan_grid(paper.width, paper.height, _geometry(comp), paper_label=paper.label, count=count)
    except ImpositionError:
        tiles = plan_tiles(comp.width, comp.height, paper.width, paper.height)
        return count * len(tiles.tiles), count * tiles.cuts()
    return math.ceil(count / plan.per_sheet), plan.cuts(count)


def after(job, paper: Paper, options: BuildOptions) -> tuple[int, int]:
    """Sheets and cuts of one file as a build lays it out now."""
    if job.members:
        bands = stack_bands([(_band_plan(c, paper, options), c.total * options.sets) for c in job.members])
        return 1, sum(b.cuts(b.per_sheet) for b in bands)
    count = job.comp.total * options.sets
    try:
        plan = plan_sheet(paper.width, paper.height, _geometry(job.comp), paper_label=paper.label, count=count)
    except ImpositionError:
        tiles = plan_tiles(job.comp.width, job.comp.height, paper.width, paper.height)
        return count * len(tiles.tiles), count * tiles.cuts()
    return math.ceil(count / plan.per_sheet), plan.cuts(count)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--paper", default="a4")
    parser.add_argument("--sets", type=int, default=1)
    args = parser.parse_args()
    options = BuildOptions(paper=args.paper, sets=args.sets)
    paper = options.sheet()
    print(f"{'game':<20} {'file':<24} {'sheets before':>13} {'after':>6} {'cuts before':>12} {'after':>6}")
    totals = [0, 0, 0, 0]
    for gid in GAMES:
        game = cardgen.load_game(gid)
        for job in print_jobs(game, None, options):
            parts = job.components
            sb = cb = 0
            for comp in parts:
                s, c = before(comp, paper, args.sets)
                sb, cb = sb + s, cb + c
            sa, ca = after(job, paper, options)
            for i, v in enumerate((sb, sa, cb, ca)):
                totals[i] += v
            print(f"{gid:<20} {job.id + '.pdf':<24} {sb:>13} {sa:>6} {cb:>12} {ca:>6}")
    print(f"{'all shipped games':<45} {totals[0]:>13} {totals[1]:>6} {totals[2]:>12} {totals[3]:>6}")


if __name__ == "__main__":
    main()
