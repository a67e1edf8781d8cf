"""Remote credentials of migrations and mirrors, encrypted at rest.

Fernet (AES-128-CBC + HMAC-SHA256) with a key derived by HKDF from CODEHOST_SECRET_KEY,
or SECRET_KEY when that is unset; the database only ever holds the ciphertext.
"""

import base64
import json
from dataclasses import dataclass, field

from cryptography.fernet import Fernet, InvalidToken
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from django.conf import settings

KEY_PURPOSE = b"codehost remote credentials"


@dataclass(frozen=True)
class RemoteCredentials:
    username: str = ""
    # repr=False: a credentials object that ends up in a log line shows no secret.
    password: str = field(default="", repr=False)

    def __bool__(self) -> bool:
        return bool(self.username or self.password)

    @property
    def secrets(self) -> tuple[str, ...]:
        return (self.password,) if self.password else ()


class CredentialsUnreadable(Exception):
    """The stored ciphertext does not open with the current key (the key was changed)."""


def _fernet() -> Fernet:
    secret = (settings.CODEHOST_SECRET_KEY or settings.SECRET_KEY).encode()
    key = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=KEY_PURPOSE).derive(secret)
    return Fernet(base64.urlsafe_b64encode(key))


def encrypt(credentials: RemoteCredentials) -> str:
    if not credentials:
        return ""
    plain = json.dumps({"u": credentials.username, "p": credentials.password}).encode()
    return _fernet().encrypt(plain).decode()


def decrypt(ciphertext: str) -> RemoteCredentials:
    if not ciphertext:
        return RemoteCredentials()
    try:
        data = json.loads(_fernet().decrypt(ciphertext.encode()))
    except InvalidToken as error:
        raise CredentialsUnreadable("stored remote credentials cannot be decrypted") from error
    return RemoteCredentials(username=data["u"], password=data["p"])
