"""The API's contract: the marshmallow schemas of request and response bodies (`schemas`,
`shapes`) and the OpenAPI document generated from them (`spec`)."""
