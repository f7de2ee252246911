"""What every request passes through: the caller's key (`auth`), bounded JSON bodies
(`json_body`, `request_bodies`), rate limits (`limits`) and stream slots (`stream_slots`),
cache headers (`caching`), CORS and /docs (`browsers`), and errors as problem+json (`errors`)."""
