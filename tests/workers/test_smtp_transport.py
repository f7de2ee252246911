"""MEEPLE_SMTP_URL against a real SMTP server (aiosmtpd) that asks for STARTTLS and a login,
as a mail provider's submission port does: credentials travel only inside TLS, and a wrong
password or a server without TLS is a failed delivery (which RQ retries), never a leak."""

from __future__ import annotations

import datetime
import ipaddress
import ssl
from collections.abc import Iterator
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from tests.conftest import free_port
from workers.notify import DeliveryFailed, deliver_email


class Inbox:
    def __init__(self) -> None:
        self.messages: list[bytes] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802
        self.messages.append(envelope.original_content)
        return "250 OK"


def self_signed(tmp_path: Path) -> tuple[Path, Path]:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName(
                [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    cert_path, key_path = tmp_path / "cert.pem", tmp_path / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                           serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return cert_path, key_path


def check_login(server: Any, session: Any, envelope: Any, mechanism: str,
                auth_data: Any) -> AuthResult:
    ok = (isinstance(auth_data, LoginPassword) and auth_data.login == b"meeple"
          and auth_data.password == b"p@ss word")
    return AuthResult(success=ok)


@pytest.fixture()
def submission(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Inbox, int]]:
    """An SMTP server that offers STARTTLS with a certificate we trust (SSL_CERT_FILE), and
    requires a login over TLS before it takes mail."""
    cert, key = self_signed(tmp_path)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))
    inbox, port = Inbox(), free_port()
    controller = Controller(inbox, hostname="127.0.0.1", port=port, tls_context=context,
                            require_starttls=True, authenticator=check_login,
                            auth_required=True, auth_require_tls=True)
    controller.start()
    yield inbox, port
    controller.stop()


def an_email() -> EmailMessage:
    email = EmailMessage()
    email["From"], email["To"], email["Subject"] = "meeple@localhost", "a@example.org", "hi"
    email.set_content("hello\n")
    return email


def test_starttls_then_login_then_the_message(submission: tuple[Inbox, int],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    inbox, port = submission
    monkeypatch.setenv("MEEPLE_SMTP_URL", f"smtp://meeple:p%40ss%20word@localhost:{port}")
    deliver_email(an_email())
    assert len(inbox.messages) == 1 and b"hello" in inbox.messages[0]


def test_a_wrong_password_is_a_failed_delivery(submission: tuple[Inbox, int],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    inbox, port = submission
    monkeypatch.setenv("MEEPLE_SMTP_URL", f"smtp://meeple:wrong@localhost:{port}")
    # smtplib, refused PLAIN, tries LOGIN, which this server leaves hanging: time out soon.
    monkeypatch.setattr("workers.notify.SMTP_TIMEOUT_SECONDS", 1)
    with pytest.raises(DeliveryFailed):
        deliver_email(an_email())
    assert inbox.messages == []


def test_no_password_is_sent_to_a_server_without_tls(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[str] = []

    def any_login(server: Any, session: Any, envelope: Any, mechanism: str,
                  auth_data: Any) -> AuthResult:
        seen.append(mechanism)
        return AuthResult(success=True)

    port = free_port()
    controller = Controller(Inbox(), hostname="127.0.0.1", port=port, authenticator=any_login,
                            auth_require_tls=False)
    controller.start()
    try:
        monkeypatch.setenv("MEEPLE_SMTP_URL", f"smtp://meeple:secret@127.0.0.1:{port}")
        with pytest.raises(DeliveryFailed, match="no STARTTLS"):
            deliver_email(an_email())
    finally:
        controller.stop()
    assert seen == []


def test_an_unknown_scheme_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEEPLE_SMTP_URL", "http://127.0.0.1:25")
    with pytest.raises(DeliveryFailed, match="smtp:// or smtps://"):
        deliver_email(an_email())
