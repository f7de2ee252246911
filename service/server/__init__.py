"""gunicorn's side of the service, loaded by deploy/gunicorn.conf.py: its logger (`logger`)
and its own refusals as problem+json (`refusals`)."""
