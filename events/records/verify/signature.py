"""Check 2, signature: Ed25519 by the embedded public key over the canonical record without
"signature"; the key id is that key's id; with trusted keys, the key is one of them."""

from __future__ import annotations

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from events.domain.envelope import canonical_json
from events.records.keys import ALG, b64url_decode, key_id_of, public_key_from_b64, raw_public_key
from events.records.verify.fields import Kind, check_fields, is_str
from events.records.verify.verification import TrustedKeys, Verification


def check_signature(v: Verification) -> None:
    signature = v.record["signature"]
    v.checked["signature"] = {"key_id": signature.get("key_id"), "valid": False,
                              "trusted": None}
    kinds: dict[str, Kind] = {
        "alg": lambda value: value == ALG, "key_id": is_str, "public_key": is_str,
        "value": is_str,
    }
    if not check_fields(v.findings, signature, "signature", kinds):
        return
    try:
        public = public_key_from_b64(signature["public_key"])
    except ValueError as error:
        v.findings.add("signature", "signature.public_key", f"not an {ALG} public key: {error}")
        return
    if key_id_of(public) != signature["key_id"]:
        v.findings.add("signature", "signature.key_id", "is not the id of the embedded public "
                       "key", expected=key_id_of(public), found=signature["key_id"])
    _check_value(v, public, signature["value"])
    if v.trusted_keys is not None:
        _check_trusted(v, v.trusted_keys, public, signature["key_id"])


def _check_value(v: Verification, public: Ed25519PublicKey, value: str) -> None:
    try:
        raw = b64url_decode(value)
    except ValueError as error:
        v.findings.add("signature", "signature.value", f"not a signature: {error}")
        return
    body = {key: item for key, item in v.record.items() if key != "signature"}
    try:
        public.verify(raw, canonical_json(body))
    except InvalidSignature:
        v.findings.add("signature", "signature.value", "does not match the record: the record "
                       "was changed after it was signed, or signed with another key")
        return
    v.checked["signature"]["valid"] = True


def _check_trusted(v: Verification, trusted_keys: TrustedKeys, public: Ed25519PublicKey,
                   key_id: str) -> None:
    trusted = trusted_keys(key_id)
    v.checked["signature"]["trusted"] = False
    if trusted is None:
        v.findings.add("signature", "signature.key_id", f"key {key_id} is not one of the "
                       "trusted keys (the server's published keys)", found=key_id)
    elif raw_public_key(trusted) != raw_public_key(public):
        v.findings.add("signature", "signature.public_key", f"is not the trusted key {key_id}")
    else:
        v.checked["signature"]["trusted"] = True
