"""A self-signed certificate for 127.0.0.1 and localhost, written into a run's private dir.

Made with the ``cryptography`` package (a dependency of mitmproxy, so it is in the suite's
environment); the openssl command line is the fallback. The certificate is its own CA: the
suite trusts exactly this file (``--ca-file``) and nothing else does.
"""

from __future__ import annotations

import datetime as dt
import ipaddress
import shutil
import subprocess
from pathlib import Path

__all__ = ["self_signed"]

#: Days the certificate is valid: one run lasts minutes; a day keeps clock skew harmless.
VALID_DAYS = 1


def self_signed(folder: Path) -> tuple[Path, Path]:
    """Write ``cert.pem`` and ``key.pem`` into ``folder``; return their paths."""
    cert, key = folder / "cert.pem", folder / "key.pem"
    try:
        _with_cryptography(cert, key)
    except ImportError:
        _with_openssl(cert, key)
    return cert, key


def _with_cryptography(cert_path: Path, key_path: Path) -> None:
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = dt.datetime.now(dt.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(days=VALID_DAYS))
        .add_extension(
            x509.SubjectAlternativeName(
                [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
            ),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )


def _with_openssl(cert_path: Path, key_path: Path) -> None:
    openssl = shutil.which("openssl")
    if openssl is None:
        raise RuntimeError("neither the cryptography package nor openssl is available")
    subprocess.run(
        [
            openssl, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
            "-nodes", "-keyout", str(key_path), "-out", str(cert_path), "-days", str(VALID_DAYS),
            "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
        ],
        check=True,
        capture_output=True,
    )  # fmt: skip
