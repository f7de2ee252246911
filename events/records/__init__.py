"""Game records: building and signing them, the signing keys, and the offline verifier."""
