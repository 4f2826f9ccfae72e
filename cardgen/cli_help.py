"""How cardgen's command groups list their commands."""

from __future__ import annotations

import click


class FullHelpGroup(click.Group):
    """A command group whose command list shows each command's whole summary, wrapped,
    where click cuts it off at the terminal's width with '...'."""

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = []
        for name in self.list_commands(ctx):
            cmd = self.get_command(ctx, name)
            if cmd is None or cmd.hidden:
                continue
            summary = cmd.short_help or (cmd.help or "").split("\n\n")[0]
            rows.append((name, " ".join(summary.split())))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)
