"""`meeple openapi`: print the OpenAPI document generated from the code."""

from __future__ import annotations

import click

from service import create_app
from service.openapi.spec import spec_yaml


@click.command("openapi")
def openapi() -> None:
    """Print openapi.yaml as generated from the code."""
    click.echo(spec_yaml(create_app({"DISPATCH": False})), nl=False)
