"""`meeple openapi`: print the OpenAPI document generated from the code."""

from service.cli import main
from service.spec import openapi_command

main.add_command(openapi_command)
